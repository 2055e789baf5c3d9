import { ACTIVE_RUN_STATUSES, isFinalRunStatus, type HistoryPage, type Message, type MessageDelta, type Run, type Session, type SessionSnapshot, type StreamingReply } from "../protocol/entities";
import { describeFormAnswer, isFlatForm } from "../protocol/forms";
import type { JsonValue, Question } from "../protocol/question";

/** Everything one chat screen draws, built only from the join snapshot and server events. */
export interface SessionState {
  session: Session | null;
  messages: Message[];
  runs: Run[];
  pending: Question[];
  /** Questions that ended while this view was open, shown as records in the transcript. */
  closed: Question[];
  /** Agent replies still streaming (keyed by run and seq), oldest first: each is replaced by its stored message. */
  streams: StreamingReply[];
  /** Where the older history begins (`GET /api/sessions/{id}/history?before=`); null: this view holds it all. */
  before: string | null;
}

export type SessionAction =
  | { type: "snapshot"; snapshot: SessionSnapshot }
  /** A page of older history, asked for with `cursor` (the view's `before` then). */
  | { type: "history"; sessionId: string; cursor: string; page: HistoryPage }
  | { type: "question.asked"; question: Question }
  | { type: "question.replied"; question: Question }
  | { type: "question.rejected"; question: Question }
  /** A pending question changed (a vote, an escalation): from the server's event, or this tab's own vote's receipt. */
  | { type: "question.updated"; question: Question }
  | { type: "message.created"; message: Message }
  | { type: "message.delta"; delta: MessageDelta }
  | { type: "run.updated"; run: Run }
  | { type: "session.updated"; session: Session };

export const initialSessionState: SessionState = { session: null, messages: [], runs: [], pending: [], closed: [], streams: [], before: null };

const sameStream = (a: { runId: string; seq: number }, b: { runId: string; seq: number }) => a.runId === b.runId && a.seq === b.seq;

/** A piece of a streaming reply: appended where it belongs; one this view already has is skipped. */
function applyDelta(streams: StreamingReply[], { runId, seq, at, delta }: MessageDelta): StreamingReply[] {
  const current = streams.find((s) => sameStream(s, { runId, seq }));
  if (!current) return at === 0 ? [...streams, { runId, seq, text: delta }] : streams;
  let text: string;
  if (at === current.text.length) text = current.text + delta;
  else if (at === 0)
    text = delta; // the reply started again (its run was replayed)
  else if (at + delta.length <= current.text.length)
    return streams; // already here (the snapshot had it)
  else if (at < current.text.length) text = current.text.slice(0, at) + delta;
  else return streams; // a gap: the stored message will bring the whole
  return streams.map((s) => (s === current ? { ...s, text } : s));
}

/** A run's stored agent message replaces its stream: the one whose text it begins with. */
function withoutStreamOf(streams: StreamingReply[], message: Message): StreamingReply[] {
  if (message.role !== "agent" || message.runId === null) return streams;
  const index = streams.findIndex((s) => s.runId === message.runId && message.text.startsWith(s.text));
  return index === -1 ? streams : streams.filter((_, i) => i !== index);
}

/** The server's order: createdAt, then id (time-ordered ids keep rows of one millisecond in the order they were made). */
const inServerOrder = <T extends { id: string; createdAt: string }>(a: T, b: T) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Inserts or replaces by id, keeping the server's order. */
function upsert<T extends { id: string; createdAt: string }>(list: T[], item: T): T[] {
  const rest = list.filter((x) => x.id !== item.id);
  return [...rest, item].sort(inServerOrder);
}

function dedupe<T extends { id: string; createdAt: string }>(list: T[]): T[] {
  const map = new Map<string, T>();
  for (const item of list) map.set(item.id, item);
  return [...map.values()].sort(inServerOrder);
}

/** A run event may arrive after a fresher snapshot (events buffered during a join): never go back in time. */
function isOlder(incoming: Run, existing: Run | undefined): boolean {
  return existing !== undefined && Date.parse(incoming.updatedAt) < Date.parse(existing.updatedAt);
}

/** Votes and escalations only ever add: an update that has fewer than the question shown is an older one that arrived late. */
function isOlderQuestion(incoming: Question, existing: Question): boolean {
  return incoming.votes.length < existing.votes.length || incoming.escalated < existing.escalated;
}

function closeQuestion(state: SessionState, question: Question): SessionState {
  if (question.status === "pending") return state;
  return {
    ...state,
    pending: state.pending.filter((q) => q.id !== question.id),
    closed: upsert(state.closed, question),
  };
}

export function sessionReducer(state: SessionState, action: SessionAction): SessionState {
  switch (action.type) {
    case "snapshot": {
      const { session, messages, runs, pendingQuestions, closedQuestions, streaming = [], before = null } = action.snapshot;
      // A new snapshot of the session shown (a reconnect) keeps the older history this view had loaded, when the two meet.
      const older = state.session?.id === session.id ? olderHistory(state, [...messages, ...closedQuestions]) : null;
      const closed = dedupe([...(older?.closed ?? []), ...closedQuestions].filter((q) => q.status !== "pending"));
      const closedIds = new Set(closed.map((q) => q.id));
      return {
        session,
        messages: dedupe([...(older?.messages ?? []), ...messages]),
        runs: dedupe([...(older?.runs ?? []), ...runs]),
        pending: dedupe(pendingQuestions.filter((q) => q.status === "pending" && !closedIds.has(q.id))),
        closed,
        streams: streaming,
        before: older ? state.before : before,
      };
    }
    case "history": {
      const { page } = action;
      // A page for a view that has since moved on (another session, a fresh snapshot) would leave a gap.
      if (state.session?.id !== action.sessionId || state.before !== action.cursor) return state;
      const closedIds = new Set(page.closedQuestions.map((q) => q.id));
      // What this view has is as new as the page or newer: its copies win.
      return {
        ...state,
        messages: dedupe([...page.messages, ...state.messages]),
        runs: dedupe([...page.runs, ...state.runs]),
        closed: dedupe([...page.closedQuestions.filter((q) => q.status !== "pending"), ...state.closed]),
        pending: state.pending.some((q) => closedIds.has(q.id)) ? state.pending.filter((q) => !closedIds.has(q.id)) : state.pending,
        before: page.before,
      };
    }
    case "question.asked": {
      const q = action.question;
      if (!belongs(state, q.sessionId) || q.status !== "pending") return state;
      if (state.pending.some((p) => p.id === q.id) || state.closed.some((c) => c.id === q.id)) return state;
      return { ...state, pending: upsert(state.pending, q) };
    }
    case "question.updated": {
      const q = action.question;
      // A question that closed (its retraction came first) stays closed.
      if (!belongs(state, q.sessionId) || q.status !== "pending" || state.closed.some((c) => c.id === q.id)) return state;
      const shown = state.pending.find((p) => p.id === q.id);
      if (shown && isOlderQuestion(q, shown)) return state;
      return { ...state, pending: upsert(state.pending, q) };
    }
    case "question.replied":
    case "question.rejected":
      return belongs(state, action.question.sessionId) ? closeQuestion(state, action.question) : state;
    case "message.created": {
      const message = action.message;
      if (!belongs(state, message.sessionId)) return state;
      return { ...state, messages: upsert(state.messages, message), streams: withoutStreamOf(state.streams, message) };
    }
    case "message.delta": {
      if (!belongs(state, action.delta.sessionId)) return state;
      const streams = applyDelta(state.streams, action.delta);
      return streams === state.streams ? state : { ...state, streams };
    }
    case "run.updated": {
      const run = action.run;
      if (
        !belongs(state, run.sessionId) ||
        isOlder(
          run,
          state.runs.find((r) => r.id === run.id),
        )
      )
        return state;
      // A run that ended streams no more: what it kept is in its messages.
      const streams = isFinalRunStatus(run.status) && state.streams.some((s) => s.runId === run.id) ? state.streams.filter((s) => s.runId !== run.id) : state.streams;
      return { ...state, runs: upsert(state.runs, run), streams };
    }
    case "session.updated":
      return state.session?.id === action.session.id ? { ...state, session: action.session } : state;
  }
}

/**
 * The history a view holds from before a new snapshot's page (items older than its oldest), when
 * the view reaches into that page (else what was missed between them would be a gap): null when
 * there is nothing to keep.
 */
function olderHistory(state: SessionState, page: { id: string; createdAt: string }[]): Pick<SessionState, "messages" | "closed" | "runs"> | null {
  if (page.length === 0 || state.messages.length + state.closed.length === 0) return null;
  const start = page.reduce((a, b) => (inServerOrder(a, b) <= 0 ? a : b));
  const held = [...state.messages, ...state.closed];
  const newest = held.reduce((a, b) => (inServerOrder(a, b) >= 0 ? a : b));
  if (inServerOrder(newest, start) < 0) return null;
  const messages = state.messages.filter((m) => inServerOrder(m, start) < 0);
  const closed = state.closed.filter((q) => inServerOrder(q, start) < 0);
  if (messages.length + closed.length === 0) return null;
  return { messages, closed, runs: state.runs.filter((r) => Date.parse(r.createdAt) < Date.parse(start.createdAt)) };
}

/** Before the snapshot we don't know the session id; events can only be for the joined room. */
function belongs(state: SessionState, sessionId: string): boolean {
  return state.session === null || state.session.id === sessionId;
}

/** The session's current turn: the latest run a person started (nested runs belong to it). */
export function latestRun(state: SessionState): Run | null {
  return state.runs.findLast((r) => r.parentRunId === null) ?? state.runs.at(-1) ?? null;
}

/** The session's chat turn while it runs: a new message waits for it (or for Stop). */
export function activeTurn(state: SessionState): Run | null {
  return state.runs.find((r) => r.holdsTurn && ACTIVE_RUN_STATUSES.includes(r.status)) ?? null;
}

/** Active runs to stop: stopping a run stops its nested runs, so those under an active parent are left out. */
export function activeRuns(state: SessionState): Run[] {
  const active = state.runs.filter((r) => ACTIVE_RUN_STATUSES.includes(r.status));
  const activeIds = new Set(active.map((r) => r.id));
  return active.filter((r) => r.parentRunId === null || !activeIds.has(r.parentRunId));
}

/** A stored answer as a person reads it: Yes/No for a confirm, a list joined by commas, a form by its labels, other JSON as JSON. */
export function formatAnswer(value: JsonValue | null, replySchema: Question["replySchema"] = null): string {
  if (value === null) return "";
  if (isFlatForm(replySchema)) return describeFormAnswer(replySchema, value);
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(", ");
  return JSON.stringify(value);
}

/** How a closed question reads in the transcript, e.g. "answered: production" or "timed out → default: 12:30". */
export function describeClosed(q: Question): string {
  switch (q.status) {
    case "answered":
      return `answered: ${formatAnswer(q.answer, q.replySchema)}`;
    case "declined":
      return q.feedback ? `declined: “${q.feedback}”` : "declined";
    case "timed_out":
      return q.hasDefault ? `timed out → default: ${formatAnswer(q.default, q.replySchema)}` : "timed out";
    case "cancelled":
      return "cancelled";
    case "expired":
      return "expired";
    case "pending":
      return "waiting for an answer";
  }
}

/**
 * The transcript: messages, question records, the live line of each run that has one, then the
 * replies still streaming. Everything of one run tree (its messages, questions, child runs and
 * stream) stays together, in a block placed where the run started, so parallel runs don't
 * interleave; a block's items are in time order.
 */
export type TranscriptItem = { type: "message"; message: Message } | { type: "question"; question: Question } | { type: "run"; run: Run } | { type: "stream"; stream: StreamingReply };

/** Whether a run shows its own line: while it works or waits, and a child run once it finished or failed (a root's end is told by its messages). */
export function showsRunLine(run: Run): boolean {
  if (ACTIVE_RUN_STATUSES.includes(run.status)) return true;
  return run.parentRunId !== null && (run.status === "succeeded" || run.status === "failed");
}

export function transcript(state: SessionState): TranscriptItem[] {
  const rootOf = new Map(state.runs.map((r) => [r.id, r.rootRunId]));
  const at = (iso: string) => Date.parse(iso);
  type Placed = { item: TranscriptItem; group: string; at: number; order: number };
  const placed: Placed[] = [];
  const place = (item: TranscriptItem, group: string, time: number, order = 0) => placed.push({ item, group, at: time, order });
  // A person's message opens the block of the turn it started.
  for (const message of state.messages)
    place({ type: "message", message }, message.runId ? (rootOf.get(message.runId) ?? message.runId) : `message:${message.id}`, at(message.createdAt), message.role === "user" ? -1 : 0);
  for (const question of state.closed) place({ type: "question", question }, question.rootRunId, at(question.createdAt));
  for (const run of state.runs) if (showsRunLine(run)) place({ type: "run", run }, run.rootRunId, at(run.createdAt));
  // A stream is the newest thing of its run: after the run's settled items.
  for (const stream of state.streams) if (stream.text.length > 0) place({ type: "stream", stream }, rootOf.get(stream.runId) ?? `stream:${stream.runId}`, Number.POSITIVE_INFINITY, 1);

  const groupStart = new Map<string, number>();
  for (const p of placed) {
    const start = p.at === Number.POSITIVE_INFINITY ? Date.now() : p.at;
    groupStart.set(p.group, Math.min(groupStart.get(p.group) ?? start, start));
  }
  // A run's block starts no later than the run itself (its first item may come after it started).
  for (const run of state.runs) if (run.parentRunId === null) groupStart.set(run.id, Math.min(groupStart.get(run.id) ?? at(run.createdAt), at(run.createdAt)));
  // The sort is stable: items equal in all of these keep the order they were placed in.
  return placed.sort((a, b) => groupStart.get(a.group)! - groupStart.get(b.group)! || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0) || a.order - b.order || a.at - b.at).map((p) => p.item);
}
