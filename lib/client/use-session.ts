import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import type { HistoryPage, Run, Session } from "../protocol/entities";
import type { WireError } from "../protocol/errors";
import type { JsonValue, Question, ReplyReceipt } from "../protocol/question";
import type { Ack, ServerToClientEvents } from "../protocol/socket";
import { describeVia } from "../protocol/audit";
import { createCoalescer, type Coalescer } from "./coalesce";
import { crossNodeStore } from "./cross-node";
import { afterAck, afterReceipt, stillOpen, type OwnAnswers } from "./own-answers";
import { initialSessionState, sessionReducer, type SessionAction } from "./session-store";
import { emitWithAck, type ParleySocket } from "./socket";
import { browserTransport, type SessionTransport } from "./transport";

export type ConnectionStatus = "connecting" | "connected" | "disconnected";

/** A short notice after a reply lost the race, e.g. "Already answered in another tab". */
export interface LateNotice {
  questionId: string;
  text: string;
}

const LATE_NOTICE_MS = 3_000;
const JOIN_RETRY_MS = 3_000;
/** One frame at 60 Hz. */
const FRAME_MS = 16;

function retraction(question: Question): SessionAction {
  return { type: question.status === "answered" ? "question.replied" : "question.rejected", question };
}

/** Why a reply lost its race, from where the winner came: "Already answered in another tab", "… in a terminal". */
export function lateText(receipt: ReplyReceipt, self: SessionTransport["surface"]): string {
  if (receipt.outcome === "already_answered") {
    const { closedBy } = receipt.question;
    if (closedBy === self) return self === "socket" ? "Already answered in another tab" : "Already answered in another terminal";
    const via = describeVia(closedBy);
    return via ? `Already answered ${via}` : "Already answered";
  }
  const how = receipt.question.status.replace("_", " ");
  return `This question has already closed (${how})`;
}

function listen<E extends keyof ServerToClientEvents>(socket: ParleySocket, event: E, handler: ServerToClientEvents[E]) {
  // socket.io's overloads don't accept a generic event name; the handler type is checked by the signature above.
  const s = socket as unknown as { on(e: string, h: unknown): void; off(e: string, h: unknown): void };
  s.on(event, handler);
  return () => s.off(event, handler);
}

/**
 * One session's live view: joins on mount and on every reconnect (the snapshot is the replay),
 * applies server events, and exposes the commands a chat screen needs. A browser tab uses its own
 * server; the terminal client passes the transport to the server it names.
 */
export function useSession(sessionId: string, transport?: SessionTransport) {
  // Resolved lazily: a browser tab's socket exists only in the browser, not while the page is rendered on the server.
  const via = useCallback(() => transport ?? browserTransport(), [transport]);
  const [state, dispatch] = useReducer(sessionReducer, initialSessionState);
  const [connection, setConnection] = useState<ConnectionStatus>("connecting");
  const [joinError, setJoinError] = useState<WireError | null>(null);
  const [joined, setJoined] = useState(false);
  const [notice, setNotice] = useState<LateNotice | null>(null);
  const [own, setOwn] = useState<OwnAnswers>(new Set());
  // Read by a reply's ack: the state above may not have rendered yet when two keys come fast.
  const ownNow = useRef<OwnAnswers>(own);
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  /** Settled questions wait a moment for the others settled with them, so several cards leave in one render. */
  const closings = useRef<Coalescer<SessionAction> | null>(null);
  closings.current ??= createCoalescer<SessionAction>((actions) => actions.forEach(dispatch));

  const later = useCallback((ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.current.delete(t);
      fn();
    }, ms);
    timers.current.add(t);
  }, []);

  useEffect(() => {
    const { socket } = via();
    let active = true;
    let joinSeq = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    // Events that arrive while a join is in flight are applied after its snapshot (the reducer is idempotent).
    let buffer: SessionAction[] | null = null;
    const closing = closings.current!;
    // A streaming reply's pieces come hundreds a second: drawn once a frame, not once a piece.
    const pieces = createCoalescer<SessionAction>((actions) => actions.forEach(dispatch), { quietMs: FRAME_MS, maxMs: FRAME_MS });
    // An "Allow always" that settles two approvals arrives as two events: held together, neither card is drawn alone.
    // Anything arriving while closings (or pieces) wait queues behind them, keeping the order.
    const apply = (action: SessionAction) => {
      if (action.type === "message.delta" && !closing.waiting) return pieces.hold(action);
      pieces.flush();
      if (action.type === "question.replied" || action.type === "question.rejected" || closing.waiting) closing.hold(action);
      else dispatch(action);
    };
    const handle = (action: SessionAction) => (buffer ? buffer.push(action) : apply(action));

    const join = async () => {
      const seq = ++joinSeq;
      setConnection("connected");
      buffer ??= [];
      const ack = await emitWithAck("session.join", { sessionId }, socket);
      if (!active || seq !== joinSeq) return;
      const queued = buffer ?? [];
      buffer = null;
      if (ack.ok) {
        pieces.flush();
        // When the snapshot arrived, for the Performance API (scripts/bench-long-chat.ts measures from here to the first paint).
        globalThis.performance?.mark?.("parley:snapshot", { detail: { sessionId } });
        closing.flush();
        dispatch({ type: "snapshot", snapshot: ack.data });
        setJoinError(null);
        setJoined(true);
      } else {
        setJoinError(ack.error);
        // A missing session stays missing; anything else (timeout, server trouble) is worth another try.
        if (ack.error.code !== "not_found:session") retry = setTimeout(() => socket.connected && void join(), JOIN_RETRY_MS);
      }
      queued.forEach(dispatch);
    };
    const onDisconnect = () => setConnection("disconnected");
    // No longer shared with me: the server made this socket leave its room. Shared again (its update reaches me again): join anew.
    let left = false;
    const onUpdated = (session: Session) => {
      if (session.id !== sessionId) return;
      if (left && socket.connected) {
        left = false;
        void join();
      } else handle({ type: "session.updated", session });
    };

    const offs = [
      listen(socket, "question.asked", (question) => handle({ type: "question.asked", question })),
      listen(socket, "question.replied", (question) => handle({ type: "question.replied", question })),
      listen(socket, "question.rejected", (question) => handle({ type: "question.rejected", question })),
      listen(socket, "question.updated", (question) => handle({ type: "question.updated", question })),
      listen(socket, "message.created", (message) => handle({ type: "message.created", message })),
      listen(socket, "message.delta", (delta) => handle({ type: "message.delta", delta })),
      listen(socket, "run.updated", (run) => handle({ type: "run.updated", run })),
      listen(socket, "session.updated", onUpdated),
      listen(socket, "session.left", ({ id }) => {
        if (id === sessionId) left = true;
      }),
    ];
    socket.on("connect", join);
    socket.on("disconnect", onDisconnect);
    // Back in touch with the other servers after an outage: what happened there meanwhile comes with a fresh snapshot.
    const crossNode = crossNodeStore(socket);
    let lastCrossNode = crossNode.get();
    const offCrossNode = crossNode.subscribe(() => {
      const now = crossNode.get();
      if (lastCrossNode === "lost" && now === "connected" && socket.connected) void join();
      lastCrossNode = now;
    });
    if (socket.connected) void join();
    else setConnection(socket.active ? "connecting" : "disconnected");

    const pendingTimers = timers.current;
    return () => {
      active = false;
      clearTimeout(retry);
      offs.forEach((off) => off());
      socket.off("connect", join);
      socket.off("disconnect", onDisconnect);
      offCrossNode();
      if (socket.connected) socket.emit("session.leave", { sessionId });
      pendingTimers.forEach(clearTimeout);
      pendingTimers.clear();
      closing.cancel();
      pieces.cancel();
    };
  }, [sessionId, via]);

  /** Applies a receipt at once rather than waiting for the broadcast; a race lost to someone else is shown, then retracted. */
  const settle = useCallback(
    (questionId: string, ack: Ack<ReplyReceipt>) => {
      const before = ownNow.current;
      ownNow.current = afterAck(before, questionId, ack);
      if (ownNow.current !== before) setOwn(ownNow.current);
      if (!ack.ok) return;
      const receipt = ack.data;
      switch (afterReceipt(receipt, before)) {
        case "keep":
          return;
        case "retract":
          return void closings.current!.hold(retraction(receipt.question));
        case "update": {
          // Your vote counted: the card stays and shows it (behind any closings held, keeping the order).
          const counted: SessionAction = { type: "question.updated", question: receipt.question };
          return void (closings.current!.waiting ? closings.current!.hold(counted) : dispatch(counted));
        }
        case "late":
          break;
      }
      const late = { questionId: receipt.question.id, text: lateText(receipt, via().surface) };
      setNotice(late);
      later(LATE_NOTICE_MS, () => {
        setNotice((current) => (current === late ? null : current));
        dispatch(retraction(receipt.question));
      });
    },
    [later, via],
  );

  const reply = useCallback(
    async (question: Question, value: JsonValue, input?: Record<string, unknown>, until?: string) => {
      // The digest makes a reply to a question that has since changed fail loudly (stale_target).
      const ack = await emitWithAck("question.reply", { id: question.id, value, digest: question.targetDigest, ...(input && { input }), ...(until && { until }) }, via().socket);
      settle(question.id, ack);
      return ack;
    },
    [settle, via],
  );

  const reject = useCallback(
    async (question: Question, message?: string) => {
      const base = { id: question.id, digest: question.targetDigest };
      const ack = await emitWithAck("question.reject", message ? { ...base, message } : base, via().socket);
      settle(question.id, ack);
      return ack;
    },
    [settle, via],
  );

  const sendMessage = useCallback(
    async (text: string) => {
      // A text command (/answer …) starts no run: its messages arrive over the socket.
      const res = await via().request<Run | { command: string }>(`/api/sessions/${encodeURIComponent(sessionId)}/messages`, { method: "POST", body: { text } });
      if (res.ok && !("command" in res.data)) dispatch({ type: "run.updated", run: res.data });
      return res;
    },
    [sessionId, via],
  );

  /** A run command whose answer is the run as it now is: stop, or retry (a failed chat turn runs again, its message not posted twice). */
  const runCommand = useCallback(
    async (runId: string, command: "stop" | "retry") => {
      const res = await via().request<Run>(`/api/runs/${encodeURIComponent(runId)}/${command}`, { method: "POST" });
      if (res.ok) dispatch({ type: "run.updated", run: res.data });
      return res;
    },
    [via],
  );
  const stopRun = useCallback((runId: string) => runCommand(runId, "stop"), [runCommand]);
  const retryRun = useCallback((runId: string) => runCommand(runId, "retry"), [runCommand]);

  /** Older history, a page at a time (one request at a time): merged where it belongs. */
  const [loadingOlder, setLoadingOlder] = useState(false);
  const loadingNow = useRef(false);
  const loadOlder = useCallback(
    async (before: string) => {
      if (loadingNow.current) return;
      loadingNow.current = true;
      setLoadingOlder(true);
      try {
        const res = await via().request<HistoryPage>(`/api/sessions/${encodeURIComponent(sessionId)}/history?before=${encodeURIComponent(before)}`);
        if (res.ok) dispatch({ type: "history", sessionId, cursor: before, page: res.data });
      } finally {
        loadingNow.current = false;
        setLoadingOlder(false);
      }
    },
    [sessionId, via],
  );

  /** The questions still open here: a question this tab answered leaves at once, before its broadcast. */
  const pending = useMemo(() => stillOpen(state.pending, own), [state.pending, own]);

  return { state, pending, retryRun, connection, joined, joinError, notice, reply, reject, sendMessage, stopRun, loadOlder, loadingOlder };
}
