import { WireErrorSchema, type WireError } from "../protocol/errors";
import type { Ack } from "../protocol/socket";
import { signInAgain } from "./sign-in";

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Whether a 401 calls the requester's onUnauthorized (the sign-in form turns it off). */
  signInOn401?: boolean;
}

export type RequestJson = <T>(path: string, init?: RequestOptions) => Promise<Ack<T>>;

/**
 * A Parley REST caller that answers in the same shape as a socket ack: data or a user-safe error.
 * A browser tab calls its own server with its cookie; a terminal client names the server and a token.
 */
export function createRequester({
  baseUrl,
  headers = {},
  onUnauthorized,
}: {
  baseUrl?: string;
  /** Sent with every request; a function is asked each time (a terminal client's token may be renewed). */
  headers?: Record<string, string> | (() => Record<string, string>);
  onUnauthorized: () => void;
}): RequestJson {
  return async function request<T>(path: string, { method = "GET", body, signInOn401 = true }: RequestOptions = {}): Promise<Ack<T>> {
    let res: Response;
    try {
      res = await fetch(baseUrl === undefined ? path : new URL(path, baseUrl), {
        method,
        headers: { ...(typeof headers === "function" ? headers() : headers), ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      return { ok: false, error: { code: "unavailable", message: "Can't reach the server. Check your connection." } };
    }
    const CUT_OFF = Symbol("cut off");
    const data: unknown = res.status === 204 ? null : await res.json().catch(() => CUT_OFF);
    if (res.status === 401 && signInOn401) onUnauthorized();
    // A success whose body never arrived (the connection dropped mid-answer): the change may or may not have happened.
    if (res.ok && data === CUT_OFF) return { ok: false, error: { code: "unavailable", message: "The server's answer was cut off. Reload to see whether it went through." } };
    if (res.ok) return { ok: true, data: data as T };
    const parsed = WireErrorSchema.safeParse((data as { error?: unknown } | null)?.error);
    const error: WireError = parsed.success ? parsed.data : { code: "internal", message: `The request failed (HTTP ${res.status}).` };
    return { ok: false, error };
  };
}

/** This tab's server, with its session cookie; a 401 goes to the sign-in page. */
export const requestJson: RequestJson = createRequester({ onUnauthorized: signInAgain });
