import { withVotes } from "../store/questions/question-store";
import { randomUUID } from "node:crypto";
import { newOrderedId } from "../ids";
import { LOCAL_OWNER } from "../../protocol/access";
import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import { HISTORY_PAGE_ITEMS, isFinalRunStatus, type HistoryPage, type Message, type Run, type Session, type SessionSnapshot, type StreamingReply } from "../../protocol/entities";
import type { Db } from "../store/db/client";
import { toMessage, toQuestion, toRun, toSession } from "../store/db/mappers";
import { type SqlTx } from "../store/sql-executor";
import { createSessionStore, type LiveSessionRow } from "../store/sessions/session-store";
import { createMessageStore, type MessageInsert } from "../store/sessions/message-store";
import { createSessionQuestions } from "../store/questions/session-questions";
import { createRunReads } from "../store/runs/run-reads";
import type { DomainEvents } from "../events";
import { createReplyStreams, mergeStreams } from "./reply-streams";
import { decodeCursor, encodeCursor, takePage, type Position } from "./history";
import { automaticTitle, type TitledFunction } from "./automatic-title";

export const DEFAULT_TITLE = "New chat";

type NewMessage = Omit<Message, "id" | "createdAt" | "runId" | "sender"> & { runId?: string | null; sender?: string | null };

const messageData = ({ runId = null, stopped = false, sender = null, ...message }: NewMessage) => ({ id: newOrderedId(), ...message, runId, stopped, sender, createdAt: new Date() });

/** The names of a session's members, as its read gives them (space-separated; null for none). */
const membersIn = (row: LiveSessionRow): string[] => (row.memberNames ? row.memberNames.split(" ") : []);
const counted = (row: LiveSessionRow) => toSession(row, row.pendingCount ?? 0, membersIn(row).length > 0);
/** Runs once each (the later copy kept), oldest first. */
const inOrder = (runs: Run[]): Run[] => [...new Map(runs.map((r) => [r.id, r])).values()].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
/** Whose tabs hear of a session: its owner's and its members'. */
const peopleOf = (row: LiveSessionRow) => [row.ownerId, ...membersIn(row)];

export function createSessionService({ db, events }: { db: Db; events: DomainEvents }) {
  const { exec } = db;
  const store = createSessionStore(exec);
  const messages = createMessageStore(exec);
  const sessionQuestions = createSessionQuestions(exec);
  const runReads = createRunReads(exec);
  /** Agent replies still streaming (in memory): snapshots carry them, `message.delta` adds to them. */
  const streams = createReplyStreams();
  /** The replies other nodes stream in a session (several nodes); none by default. */
  let streamsElsewhere: ((sessionId: string) => Promise<StreamingReply[]>) | null = null;

  const notFound = (id: string) => new AppError("not_found:session", `No session with id ${quoteId(id)}.`);

  /** A session being deleted (or gone) is not found, exactly as an id that never existed. */
  async function getSession({ id }: { id: string }): Promise<Session> {
    const row = await store.live(id);
    if (!row) throw notFound(id);
    return counted(row);
  }

  function announceMessage(message: Message): Message {
    events.emit("message.created", message);
    return message;
  }

  /** Tells its people's tabs how a session is now (as read), and answers it. */
  function announced(row: LiveSessionRow): Session {
    const session = counted(row);
    events.emit("session.updated", session, peopleOf(row));
    return session;
  }

  /** Tells its people's tabs how the session is now; a session deleted meanwhile is not announced again. */
  async function publish(id: string): Promise<void> {
    const row = await store.live(id);
    if (row) announced(row);
  }

  /** The newest HISTORY_PAGE_ITEMS messages and closed questions before a place (null: the end), and the runs they need. */
  async function historyBefore(sessionId: string, before: Position | null): Promise<HistoryPage> {
    const limit = HISTORY_PAGE_ITEMS + 1;
    const at = before && new Date(before.at);
    const place = before && { at: at!, id: before.id };
    const [said, closed] = await Promise.all([place ? messages.before(sessionId, place, limit) : messages.newest(sessionId, limit), sessionQuestions.closedBefore(sessionId, place, limit)]);
    const page = takePage(said.map(toMessage), closed.map(toQuestion), HISTORY_PAGE_ITEMS);
    // The runs its items belong to, and those that started in its stretch (a nested run's line is drawn where it started).
    const ids = [...new Set([...page.messages.flatMap((m) => (m.runId ? [m.runId] : [])), ...page.questions.map((q) => q.runId)])];
    const [between, named] = await Promise.all([runReads.between(sessionId, page.oldest && new Date(page.oldest.at), at), ids.length > 0 ? runReads.byIds(sessionId, ids) : []]);
    return {
      messages: page.messages,
      closedQuestions: await withVotes(page.questions, exec),
      runs: inOrder([...between, ...named].map(toRun)),
      before: page.oldest && encodeCursor(page.oldest),
    };
  }

  return {
    getSession,
    publish,

    /** The owner of a session that is not being deleted (not_found else): one read, no counts. */
    async ownerOf({ id }: { id: string }): Promise<string> {
      const row = await store.owner(id);
      if (!row || row.deletedAt !== null) throw notFound(id);
      return row.ownerId;
    },

    async createSession({ title, ownerId = LOCAL_OWNER }: { title?: string; ownerId?: string } = {}): Promise<Session> {
      const row = await store.insert({ id: randomUUID(), ownerId, title: title ?? DEFAULT_TITLE, at: new Date() });
      const session = toSession(row, 0, false);
      events.emit("session.updated", session, [ownerId]);
      return session;
    },

    /** The sessions a person owns or is a member of, newest first; every owner's without one (the CLI on the database). */
    async listSessions({ ownerId }: { ownerId?: string } = {}): Promise<Session[]> {
      return (await store.listOf(ownerId ?? null, 200)).map(counted);
    },

    /** The session's end: its newest page of history, and everything live (pending questions, active runs, replies streaming). */
    async getSnapshot({ id }: { id: string }): Promise<SessionSnapshot> {
      const session = await getSession({ id });
      const [page, active, questions] = await Promise.all([historyBefore(id, null), runReads.activeInSession(id), sessionQuestions.pending(id)]);
      // Read after the messages: a reply whose message was stored meanwhile is in one list, not both.
      const local = streams.of(id);
      const runs = inOrder([...page.runs, ...active.map(toRun)]);
      // Only an active run streams: other nodes are asked only then.
      const elsewhere = streamsElsewhere && runs.some((r) => !isFinalRunStatus(r.status)) ? await streamsElsewhere(id) : [];
      return { session, ...page, runs, pendingQuestions: await withVotes(questions.map(toQuestion), exec), streaming: mergeStreams(local, elsewhere, page.messages) };
    },

    /** The page of a session's history before `before` (a snapshot's or a page's cursor). */
    async getHistory({ id, before }: { id: string; before: string }): Promise<HistoryPage> {
      const from = decodeCursor(before);
      await getSession({ id });
      return historyBefore(id, from);
    },

    /**
     * Stores and announces a message. `storedBy` stores its row with what belongs to it (a run's
     * journal entry, the run's lease) instead of alone: the row as stored.
     */
    async addMessage(
      { streamSeq, ...message }: NewMessage & { /** the journal position of the streamed reply this message completes */ streamSeq?: number },
      storedBy: (row: MessageInsert) => Promise<MessageInsert> = (row) => messages.insert(exec, row),
    ): Promise<Message> {
      const row = await storedBy(messageData(message));
      // The stored message replaces the stream in every tab (and in later snapshots) at once.
      if (row.runId !== null && streamSeq !== undefined) streams.drop(row.sessionId, row.runId, streamSeq);
      return announceMessage(toMessage(row));
    },

    /** More text of a streaming agent reply: kept for snapshots and sent to the session's tabs. */
    streamReply(delta: { sessionId: string; runId: string; seq: number; delta: string }): void {
      const at = streams.append(delta);
      if (at !== null) events.emit("message.delta", { ...delta, at });
    },

    /** Forgets the run's open streams (it ended, or left its worker): its stored messages are what stays. */
    endStreams: (runId: string): StreamingReply[] => streams.dropRun(runId),

    /** The replies this node streams in a session, oldest first. */
    openStreams: (sessionId: string): StreamingReply[] => streams.of(sessionId),

    /** Where snapshots find the replies that other nodes stream (a tab may join on a node other than the run's). */
    streamsFrom(fetch: (sessionId: string) => Promise<StreamingReply[]>): void {
      streamsElsewhere = fetch;
    },

    /** Stores a message inside someone else's transaction; announce it once that has committed. */
    recordMessage: async (tx: SqlTx, message: NewMessage): Promise<Message> => toMessage(await messages.insert(tx, messageData(message))),

    announceMessage,

    /**
     * Names an untitled session after its first real message, or after the function its slash command
     * starts (`/coffee` → "Order coffee", of the `functions` loaded); a title a person chose is never
     * replaced. Either way the session moves to the top, and its people's tabs are told.
     */
    async titleFromMessage({ id, text, functions = [] }: { id: string; text: string; functions?: readonly TitledFunction[] }): Promise<void> {
      const title = automaticTitle(text, functions);
      const at = new Date();
      const titled = title !== null && (await store.autoTitle({ id, title, untitled: DEFAULT_TITLE, at }));
      if (!titled) await store.touch(id, at);
      await publish(id);
    },

    /** A person's title: kept from now on (no automatic title replaces it); every tab of its people is told. */
    async renameSession({ id, title }: { id: string; title: string }): Promise<Session> {
      if (!(await store.rename({ id, title, at: new Date() }))) throw notFound(id);
      const row = await store.live(id);
      if (!row) throw notFound(id);
      return announced(row);
    },

    /**
     * The first step of a delete: from this write on the session is not found and nothing new
     * starts in it (a run's insert checks this in its own transaction). Exactly one of several
     * concurrent deletes gets here; the others are told the session is not found.
     */
    async markDeleted({ id }: { id: string }): Promise<{ ownerId: string }> {
      const row = await store.markDeleted(id, new Date());
      if (!row) throw notFound(id);
      return row;
    },

    /** The last step of a delete: removes a session marked deleted with everything it holds (messages, runs, questions, rules). */
    async removeDeleted({ id }: { id: string }): Promise<void> {
      await store.removeDeleted(id);
    },

    /** Sessions whose delete began but did not finish (the server stopped in between). */
    listDeleted: (): Promise<string[]> => store.deletedIds(),
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
