import { WireErrorSchema, type WireError } from "../protocol/errors";
import type { Ack } from "../protocol/socket";
import { signInAgain } from "./sign-in";

/** Calls a Parley REST endpoint and answers in the same shape as a socket ack: data or a user-safe error. */
export async function requestJson<T>(
  url: string,
  { method = "GET", body, signInOn401 = true }: { method?: string; body?: unknown; signInOn401?: boolean } = {},
): Promise<Ack<T>> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: body === undefined ? undefined : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, error: { code: "unavailable", message: "Can't reach the server. Check your connection." } };
  }
  const CUT_OFF = Symbol("cut off");
  const data: unknown = res.status === 204 ? null : await res.json().catch(() => CUT_OFF);
  if (res.status === 401 && signInOn401) signInAgain();
  // A success whose body never arrived (the connection dropped mid-answer): the change may or may not have happened.
  if (res.ok && data === CUT_OFF) return { ok: false, error: { code: "unavailable", message: "The server's answer was cut off. Reload to see whether it went through." } };
  if (res.ok) return { ok: true, data: data as T };
  const parsed = WireErrorSchema.safeParse((data as { error?: unknown } | null)?.error);
  const error: WireError = parsed.success ? parsed.data : { code: "internal", message: `The request failed (HTTP ${res.status}).` };
  return { ok: false, error };
}
