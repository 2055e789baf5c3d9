import type { SocketSurface } from "../protocol/surfaces";
import { requestJson, type RequestJson } from "./api";
import { getSocket, type ParleySocket } from "./socket";

/** How a client reaches its server: a browser tab's own, or the one a terminal client names. */
export interface SessionTransport {
  socket: ParleySocket;
  request: RequestJson;
  /** The surface this client's socket answers are recorded as (`closedBy`): a lost race names the winner relative to it. */
  surface: SocketSurface;
}

let browser: SessionTransport | null = null;

/** This tab's transport (created on first use, in the browser only). */
export function browserTransport(): SessionTransport {
  browser ??= { socket: getSocket(), request: requestJson, surface: "socket" };
  return browser;
}
