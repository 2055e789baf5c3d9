import { io, type Socket } from "socket.io-client";
import type { WireError } from "../protocol/errors";
import type { QuestionRejectCommand, QuestionReplyCommand } from "../protocol/question";
import { signInAgain } from "./sign-in";
import { crossNodeStore } from "./cross-node";
import { SOCKET_PATH, type Ack, type ClientToServerEvents, type ServerToClientEvents, type SessionJoinCommand } from "../protocol/socket";

export type ParleySocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export const ACK_TIMEOUT_MS = 10_000;

/**
 * A socket to a Parley server that keeps itself connected: socket.io reconnects by itself except
 * after a server-side disconnect (e.g. a restart's shutdown), so that case is retried here too.
 * `url` is absent in a browser tab (the page's own server).
 */
export function connectSocket({ url, auth, onUnauthorized }: { url?: string; auth?: Record<string, string>; onUnauthorized: () => void }): ParleySocket {
  const options = { path: SOCKET_PATH, ...(auth ? { auth } : {}) };
  const s: ParleySocket = url === undefined ? io(options) : io(url, options);
  s.on("disconnect", (reason) => {
    if (reason === "io server disconnect") setTimeout(() => s.connect(), 1_000);
  });
  s.on("connect_error", (err) => {
    if (err.message === "unauthorized") onUnauthorized();
  });
  return s;
}

let socket: ParleySocket | null = null;

/** The one socket of this tab, created on first use (never during server rendering). */
export function getSocket(): ParleySocket {
  if (typeof window === "undefined") throw new Error("The socket exists only in the browser.");
  // The session cookie is no longer valid (signed out, or a server with another key): sign in again.
  if (!socket) {
    socket = connectSocket({ onUnauthorized: signInAgain });
    // Listening from the start: the server says its status as soon as the socket connects.
    crossNodeStore(socket);
  }
  return socket;
}

/** What each command sends; the server validates it again. */
interface CommandPayloads {
  "session.join": SessionJoinCommand;
  "question.reply": QuestionReplyCommand;
  "question.reject": QuestionRejectCommand;
}
type Command = keyof CommandPayloads;
export type AckOf<E extends Command> = Parameters<Parameters<ClientToServerEvents[E]>[1]>[0];

/** Emits a command and resolves with its ack; a timeout or a lost connection becomes an error ack, never a throw. */
export async function emitWithAck<E extends Command>(event: E, payload: CommandPayloads[E], s: ParleySocket = getSocket()): Promise<AckOf<E>> {
  const fail = (message: string) => ({ ok: false, error: { code: "unavailable", message } satisfies WireError }) as Ack<never> as AckOf<E>;
  // Don't let socket.io buffer a reply to send after a reconnect: the user must see it did not go through.
  if (!s.connected) return fail("Not connected to the server. Try again when the connection is back.");
  // A union of command names defeats socket.io's per-event typing; AckOf types each ack instead.
  const timed = s.timeout(ACK_TIMEOUT_MS) as unknown as { emitWithAck(event: string, payload: unknown): Promise<unknown> };
  try {
    return (await timed.emitWithAck(event, payload)) as AckOf<E>;
  } catch {
    return fail("The server did not answer in time. Try again.");
  }
}
