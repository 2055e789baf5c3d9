import { io as connect } from "socket.io-client";
import { ERROR_STATUS, ErrorCodeSchema } from "../../lib/protocol/errors";
import type { Tab } from "../helpers/remote";
import { ANSWER_WITHIN_MS, MAX_ERROR_BODY_CHARS, ResponseProblem } from "./http-probe";

/** One socket command as the fuzz suite sends it, with any arguments, and the checks of its ack. */

export interface Ack {
  ok: boolean;
  data?: unknown;
  error?: { code: string; message: string };
}

/** Emits `event` with `args` and waits for the ack; no ack within the bound is a hang. */
export async function emitForAck(tab: Tab, event: string, args: unknown[], timeoutMs = ANSWER_WITHIN_MS): Promise<Ack> {
  if (!tab.connected) throw new ResponseProblem(`the socket is disconnected before ${event}`);
  const emitter = tab.timeout(timeoutMs) as unknown as { emitWithAck(event: string, ...args: unknown[]): Promise<Ack> };
  try {
    return await emitter.emitWithAck(event, ...args);
  } catch (err) {
    throw new ResponseProblem(`no ack for ${event} within ${timeoutMs} ms (${tab.connected ? "a hang" : "the server disconnected the socket"}): ${(err as Error).message}`);
  }
}

interface Engine {
  write(data: string): void;
  on(event: "message", listener: (data: unknown) => void): void;
  off(event: "message", listener: (data: unknown) => void): void;
}
const engineOf = (tab: Tab) => (tab.io as unknown as { engine: Engine }).engine;
let rawAckId = 1_000_000_000;

/**
 * Emits a Socket.IO event whose arguments are `argsJson` (a JSON array, as text) straight through
 * the connection, as a client other than socket.io-client could: the text reaches the server as
 * written (duplicate keys, `__proto__`, 5,000 levels that socket.io-client's recursive encoder
 * could not send). With `ack`, waits for the ack and returns it.
 */
export async function emitRaw(tab: Tab, event: string, argsJson: string, { ack = true, timeoutMs = ANSWER_WITHIN_MS } = {}): Promise<Ack | undefined> {
  if (!tab.connected) throw new ResponseProblem(`the socket is disconnected before ${event}`);
  if (!argsJson.startsWith("[")) throw new Error("argsJson must be a JSON array");
  const rest = argsJson === "[]" ? "]" : `,${argsJson.slice(1)}`;
  const packet = (id: string) => `2${id}[${JSON.stringify(event)}${rest}`;
  const engine = engineOf(tab);
  if (!ack) {
    engine.write(packet(""));
    return undefined;
  }
  const id = String(rawAckId++);
  return new Promise<Ack>((resolve, reject) => {
    const onMessage = (data: unknown) => {
      if (typeof data !== "string" || !data.startsWith(`3${id}[`)) return;
      done();
      try {
        resolve((JSON.parse(data.slice(1 + id.length)) as Ack[])[0]!);
      } catch (err) {
        reject(new ResponseProblem(`an ack that is not JSON: ${data.slice(0, 200)} (${(err as Error).message})`));
      }
    };
    const onDisconnect = (reason: string) => {
      done();
      reject(new ResponseProblem(`the server disconnected the socket (${reason}) instead of answering ${event}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new ResponseProblem(`no ack for ${event} within ${timeoutMs} ms (a hang)`));
    }, timeoutMs);
    function done() {
      clearTimeout(timer);
      engine.off("message", onMessage);
      tab.off("disconnect", onDisconnect);
    }
    engine.on("message", onMessage);
    tab.on("disconnect", onDisconnect);
    engine.write(packet(id));
  });
}

/** An error ack: `{ ok: false, error: { code ∈ ErrorCodeSchema, message } }`, bounded, never `internal`. Returns the code. */
export function checkErrorAck(event: string, ack: Ack): string {
  const what = () => `${event} → ${JSON.stringify(ack)?.slice(0, 300)}`;
  if (ack?.ok !== false) throw new ResponseProblem(`expected an error ack: ${what()}`);
  const code = ErrorCodeSchema.safeParse(ack.error?.code);
  if (!code.success || typeof ack.error?.message !== "string") throw new ResponseProblem(`not a typed error ack: ${what()}`);
  if (ERROR_STATUS[code.data] >= 500) throw new ResponseProblem(`server error ack: ${what()}`);
  if (JSON.stringify(ack).length > MAX_ERROR_BODY_CHARS) throw new ResponseProblem(`error ack of ${JSON.stringify(ack).length} characters: ${what()}`);
  return code.data;
}

/** Any ack: a success, or a typed error as above. */
export function checkAck(event: string, ack: Ack): string | null {
  if (ack?.ok === true) return null;
  return checkErrorAck(event, ack);
}

/** Connects with `auth` as the handshake's payload: connected, or the connect_error's message and data. No answer within the bound is a hang. */
export function handshake(url: string, auth: Record<string, unknown>, timeoutMs = ANSWER_WITHIN_MS): Promise<{ connected: true } | { connected: false; message: string; data: unknown }> {
  const socket = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, auth });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.disconnect();
      reject(new ResponseProblem(`no answer to a handshake within ${timeoutMs} ms (a hang)`));
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.disconnect();
      resolve({ connected: true });
    });
    socket.once("connect_error", (err: Error & { data?: unknown }) => {
      clearTimeout(timer);
      socket.disconnect();
      resolve({ connected: false, message: err.message, data: err.data });
    });
  });
}
