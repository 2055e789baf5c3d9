import { useEffect, useState, type Dispatch, type RefObject } from "react";
import type { WireError } from "../protocol/errors";
import type { Coalescer } from "./coalesce";
import { followSession, type ConnectionStatus } from "./session-feed";
import type { SessionAction } from "./session-store";
import type { SessionTransport } from "./transport";

export interface SessionFeed {
  connection: ConnectionStatus;
  joined: boolean;
  joinError: WireError | null;
}

/** Follows the session while mounted (again when it or the transport changes): how the connection and the join stand. */
export function useSessionFeed(sessionId: string, via: () => SessionTransport, dispatch: Dispatch<SessionAction>, closings: RefObject<Coalescer<SessionAction> | null>): SessionFeed {
  const [connection, setConnection] = useState<ConnectionStatus>("connecting");
  const [joinError, setJoinError] = useState<WireError | null>(null);
  const [joined, setJoined] = useState(false);
  useEffect(() => followSession(via().socket, sessionId, { dispatch, closing: closings.current!, setConnection, setJoinError, setJoined }), [sessionId, via, dispatch, closings]);
  return { connection, joined, joinError };
}
