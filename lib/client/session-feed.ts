import type { Dispatch } from "react";
import type { Session } from "../protocol/entities";
import type { WireError } from "../protocol/errors";
import type { ServerToClientEvents } from "../protocol/socket";
import { createCoalescer, type Coalescer } from "./coalesce";
import { crossNodeStore } from "./cross-node";
import type { SessionAction } from "./session-store";
import { emitWithAck, type ParleySocket } from "./socket";

export type ConnectionStatus = "connecting" | "connected" | "disconnected";

const JOIN_RETRY_MS = 3_000;
/** One frame at 60 Hz. */
const FRAME_MS = 16;

/** What following a session reports back to the view. */
export interface SessionFeedSinks {
  dispatch: Dispatch<SessionAction>;
  /** Settled questions held a moment, so several cards leave in one render. */
  closing: Coalescer<SessionAction>;
  setConnection(status: ConnectionStatus): void;
  setJoinError(error: WireError | null): void;
  setJoined(joined: boolean): void;
}

function listen<E extends keyof ServerToClientEvents>(socket: ParleySocket, event: E, handler: ServerToClientEvents[E]) {
  // socket.io's overloads don't accept a generic event name; the handler type is checked by the signature above.
  const s = socket as unknown as { on(e: string, h: unknown): void; off(e: string, h: unknown): void };
  s.on(event, handler);
  return () => s.off(event, handler);
}

/**
 * Follows one session on a socket: joins now and on every reconnect (the snapshot is the replay),
 * and applies its server events. The function returned stops following (and leaves its room).
 */
export function followSession(socket: ParleySocket, sessionId: string, { dispatch, closing, setConnection, setJoinError, setJoined }: SessionFeedSinks): () => void {
  let active = true;
  let joinSeq = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  // Events that arrive while a join is in flight are applied after its snapshot (the reducer is idempotent).
  let buffer: SessionAction[] | null = null;
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

  return () => {
    active = false;
    clearTimeout(retry);
    offs.forEach((off) => off());
    socket.off("connect", join);
    socket.off("disconnect", onDisconnect);
    offCrossNode();
    if (socket.connected) socket.emit("session.leave", { sessionId });
    closing.cancel();
    pieces.cancel();
  };
}
