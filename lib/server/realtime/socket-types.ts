import type { Server, Socket } from "socket.io";
import type { SocketSurface } from "../../protocol/surfaces";
import type { ClusterMessage, ClusterQuery } from "../../protocol/cluster";
import type { ClientToServerEvents, ServerToClientEvents } from "../../protocol/socket";
import type { Principal } from "../access/authenticator";

export interface SocketData {
  principal: Principal;
  /** Where its answers are recorded as given from: a browser tab, or a terminal client. */
  surface: SocketSurface;
}
/** Between nodes, through the Redis adapter's serverSideEmit. */
export interface ServerSideEvents {
  "parley:cluster": (message: ClusterMessage) => void;
  "parley:ask": (query: ClusterQuery, answer: (reply: unknown) => void) => void;
}
export type ParleySocket = Socket<ClientToServerEvents, ServerToClientEvents, ServerSideEvents, SocketData>;
export type ParleyIo = Server<ClientToServerEvents, ServerToClientEvents, ServerSideEvents, SocketData>;
