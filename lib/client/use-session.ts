import { useCallback, useMemo, useReducer, useRef } from "react";
import { createCoalescer, type Coalescer } from "./coalesce";
import { stillOpen } from "./own-answers";
import { initialSessionState, sessionReducer, type SessionAction } from "./session-store";
import { browserTransport, type SessionTransport } from "./transport";
import { useSessionFeed } from "./use-session-feed";
import { useAnswers } from "./use-answers";
import { useSessionRequests } from "./use-session-requests";

export type { ConnectionStatus } from "./session-feed";
export type { LateNotice } from "./use-answers";
export { lateText } from "./late-text";

/**
 * One session's live view: joins on mount and on every reconnect (the snapshot is the replay),
 * applies server events, and exposes the commands a chat screen needs. A browser tab uses its own
 * server; the terminal client passes the transport to the server it names.
 */
export function useSession(sessionId: string, transport?: SessionTransport) {
  // Resolved lazily: a browser tab's socket exists only in the browser, not while the page is rendered on the server.
  const via = useCallback(() => transport ?? browserTransport(), [transport]);
  const [state, dispatch] = useReducer(sessionReducer, initialSessionState);
  /** Settled questions wait a moment for the others settled with them, so several cards leave in one render. */
  const closings = useRef<Coalescer<SessionAction> | null>(null);
  closings.current ??= createCoalescer<SessionAction>((actions) => actions.forEach(dispatch));

  const { own, notice, reply, reject } = useAnswers(sessionId, via, dispatch, closings);
  const { connection, joined, joinError } = useSessionFeed(sessionId, via, dispatch, closings);
  const { sendMessage, stopRun, retryRun, loadOlder, loadingOlder } = useSessionRequests(sessionId, via, dispatch);

  /** The questions still open here: a question this tab answered leaves at once, before its broadcast. */
  const pending = useMemo(() => stillOpen(state.pending, own), [state.pending, own]);

  return { state, pending, retryRun, connection, joined, joinError, notice, reply, reject, sendMessage, stopRun, loadOlder, loadingOlder };
}
