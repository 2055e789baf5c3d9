import { io as connect, type Socket } from "socket.io-client";
import type { SessionSnapshot } from "../../lib/protocol/entities";
import type { QuestionRejectCommand, QuestionReplyCommand, ReplyReceipt } from "../../lib/protocol/commands";
import type { Ack, ClientToServerEvents, ServerToClientEvents } from "../../lib/protocol/socket";
import { authHeaders, TEST_TOKEN } from "./server-process";

/** Clients of a running Parley over its public interfaces only (REST and Socket.IO), as a browser or a script sees it. */

export type Tab = Socket<ServerToClientEvents, ClientToServerEvents>;

/** A tab's `session.join`, answered with its ack (the snapshot, or an error). */
export const joinSession = (tab: Tab, sessionId: string): Promise<Ack<SessionSnapshot>> => tab.emitWithAck("session.join", { sessionId });
/** A tab's `question.reply`; typed as unknown so a test may send what a well-behaved client would not. */
export const sendReply = (tab: Tab, payload: unknown): Promise<Ack<ReplyReceipt>> => tab.emitWithAck("question.reply", payload as QuestionReplyCommand);
/** A tab's `question.reject`, as `sendReply`. */
export const sendReject = (tab: Tab, payload: unknown): Promise<Ack<ReplyReceipt>> => tab.emitWithAck("question.reject", payload as QuestionRejectCommand);

export interface RestResponse<T = any> {
  status: number;
  body: T;
}

/** A response's JSON, or its text when it is not JSON (a crash page): kept for the failure message. */
export async function jsonOrText(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text === "" ? null : JSON.parse(text);
  } catch {
    return text;
  }
}

/** A REST client of a test server; it authenticates with `token` (the test servers' PARLEY_TOKEN unless told otherwise, none with null). */
export function restClient(url: string, { token = TEST_TOKEN }: { token?: string | null } = {}) {
  async function call<T>(method: string, path: string, body?: unknown): Promise<RestResponse<T>> {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(token ? authHeaders(token) : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await jsonOrText(res)) as T };
  }
  /** The body of a 2xx answer; anything else throws with the status and body. */
  async function ok<T>(pending: Promise<RestResponse<T>>): Promise<T> {
    const res = await pending;
    if (res.status < 200 || res.status > 299) throw new Error(`HTTP ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
  return {
    get: <T = any>(path: string) => call<T>("GET", path),
    post: <T = any>(path: string, body?: unknown) => call<T>("POST", path, body),
    patch: <T = any>(path: string, body?: unknown) => call<T>("PATCH", path, body),
    put: <T = any>(path: string, body?: unknown) => call<T>("PUT", path, body),
    del: <T = any>(path: string) => call<T>("DELETE", path),
    ok,
  };
}

export type RestClient = ReturnType<typeof restClient>;

/** A socket connected like a browser tab without an Origin header (scripts may connect so). */
export async function openTab(url: string, { token = TEST_TOKEN }: { token?: string | null } = {}): Promise<Tab> {
  const socket: Tab = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, auth: token ? { token } : {} });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  return socket;
}

/** "connected", or why a socket's handshake was refused (the socket is closed either way). */
export function handshakeOutcome(url: string, { token, headers = {} }: { token?: string; headers?: Record<string, string> } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, auth: token ? { token } : {}, extraHeaders: headers });
    socket.once("connect", () => {
      socket.disconnect();
      resolve("connected");
    });
    socket.once("connect_error", (err) => {
      socket.disconnect();
      resolve(err.message);
    });
  });
}

/** Resolves with the first `event` on `tab` that satisfies `match`, or fails after `ms`. */
export function eventOn<E extends keyof ServerToClientEvents>(
  tab: Tab,
  event: E,
  match: (payload: Parameters<ServerToClientEvents[E]>[0]) => boolean = () => true,
  ms = 15_000,
): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return new Promise((resolve, reject) => {
    const listener = ((payload: Parameters<ServerToClientEvents[E]>[0]) => {
      if (!match(payload)) return;
      clearTimeout(timer);
      tab.off(event, listener);
      resolve(payload);
    }) as never;
    const timer = setTimeout(() => {
      tab.off(event, listener);
      reject(new Error(`no matching ${event} within ${ms} ms`));
    }, ms);
    tab.on(event, listener);
  });
}

/** Polls until `check` returns something other than undefined/false; fails with `what` after `ms`. */
export async function poll<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 15_000, every = 50): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

export const FINAL_RUN_STATUSES = ["succeeded", "failed", "cancelled"] as const;
export const isFinalStatus = (status: string) => (FINAL_RUN_STATUSES as readonly string[]).includes(status);
