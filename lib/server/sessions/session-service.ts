import { randomUUID } from "node:crypto";
import { NEWEST_FIRST, newOrderedId, OLDEST_FIRST } from "../ids";
import { LOCAL_OWNER } from "../../protocol/access";
import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import { isFinalRunStatus, type Message, type Session, type SessionSnapshot, type StreamingReply } from "../../protocol/entities";
import { directSqlite, type Db, type Tx } from "../db/client";
import { fromSqliteTime, sqliteTime } from "../db/direct-rows";
import type { ChatSession as SessionRow } from "../../generated/prisma/client";
import { QUESTION_WITH_ROOT, toMessage, toQuestion, toRun, toSession } from "../db/mappers";
import type { DomainEvents } from "../events";
import { createReplyStreams, mergeStreams } from "./reply-streams";

export const DEFAULT_TITLE = "New chat";
const SNAPSHOT_MESSAGES = 500;
const SNAPSHOT_CLOSED_QUESTIONS = 50;

type NewMessage = Omit<Message, "id" | "createdAt" | "runId"> & { runId?: string | null };

const messageData = ({ sessionId, role, text, runId = null, stopped = false, sender }: NewMessage) => ({ id: newOrderedId(), sessionId, role, text, runId, stopped, sender: sender ?? null });

export function createSessionService({ db, events }: { db: Db; events: DomainEvents }) {
  const direct = directSqlite(db);
  /** A message row written on the direct lane, inside its transaction. */
  const insertNow = (data: ReturnType<typeof messageData>) => {
    const at = new Date();
    direct!
      .prepare(`INSERT INTO "Message" ("id", "sessionId", "runId", "role", "text", "stopped", "sender", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(data.id, data.sessionId, data.runId, data.role, data.text, data.stopped ? 1 : 0, data.sender, sqliteTime(at));
    return { ...data, createdAt: at };
  };
  /** Agent replies still streaming (in memory): snapshots carry them, `message.delta` adds to them. */
  const streams = createReplyStreams();
  /** The replies other nodes stream in a session (several nodes); none by default. */
  let streamsElsewhere: ((sessionId: string) => Promise<StreamingReply[]>) | null = null;

  async function pendingCounts(ids?: string[]): Promise<Map<string, number>> {
    const rows = await db.question.groupBy({
      by: ["sessionId"],
      where: { status: "pending", ...(ids ? { sessionId: { in: ids } } : {}) },
      _count: { _all: true },
    });
    return new Map(rows.map((r) => [r.sessionId, r._count._all]));
  }

  const notFound = (id: string) => new AppError("not_found:session", `No session with id ${quoteId(id)}.`);

  /** A session being deleted (or gone) is not found, exactly as an id that never existed. */
  async function getSession({ id }: { id: string }): Promise<Session> {
    const row = await db.chatSession.findFirst({ where: { id, deletedAt: null } });
    if (!row) throw notFound(id);
    return toSession(row, (await pendingCounts([id])).get(id) ?? 0);
  }

  function announceMessage(message: Message): Message {
    events.emit("message.created", message);
    return message;
  }

  /** Tells the owner's tabs how the session is now; a session deleted meanwhile is not announced again. */
  async function publish(id: string): Promise<void> {
    if (direct) {
      const session = await direct.read(() => {
        const row = direct
          .prepare(
            `SELECT s.*, (SELECT COUNT(*) FROM "Question" q WHERE q."sessionId" = s."id" AND q."status" = 'pending') AS "pendingCount" FROM "ChatSession" s WHERE s."id" = ? AND s."deletedAt" IS NULL`,
          )
          .get<Record<string, unknown> & { pendingCount: number }>(id);
        return (
          row &&
          toSession(
            { ...(row as unknown as SessionRow), createdAt: fromSqliteTime(row.createdAt)!, updatedAt: fromSqliteTime(row.updatedAt)!, renamedAt: fromSqliteTime(row.renamedAt), deletedAt: null },
            row.pendingCount,
          )
        );
      });
      if (session) events.emit("session.updated", session);
      return;
    }
    const row = await db.chatSession.findFirst({ where: { id, deletedAt: null } });
    if (!row) return;
    events.emit("session.updated", toSession(row, (await pendingCounts([id])).get(id) ?? 0));
  }

  return {
    getSession,
    publish,

    /** The owner of a session that is not being deleted (not_found else): one read, no counts. */
    async ownerOf({ id }: { id: string }): Promise<string> {
      const row = direct
        ? await direct.read(() => direct.prepare(`SELECT "ownerId" FROM "ChatSession" WHERE "id" = ? AND "deletedAt" IS NULL`).get<{ ownerId: string }>(id))
        : await db.chatSession.findFirst({ where: { id, deletedAt: null }, select: { ownerId: true } });
      if (!row) throw notFound(id);
      return row.ownerId;
    },

    async createSession({ title, ownerId = LOCAL_OWNER }: { title?: string; ownerId?: string } = {}): Promise<Session> {
      const row = await db.chatSession.create({ data: { id: randomUUID(), ownerId, title: title ?? DEFAULT_TITLE } });
      const session = toSession(row, 0);
      events.emit("session.updated", session);
      return session;
    },

    /** An owner's sessions, newest first; every owner's without one (the CLI on the database). */
    async listSessions({ ownerId }: { ownerId?: string } = {}): Promise<Session[]> {
      const rows = await db.chatSession.findMany({ where: ownerId === undefined ? { deletedAt: null } : { ownerId, deletedAt: null }, orderBy: { updatedAt: "desc" }, take: 200 });
      const counts = await pendingCounts(rows.map((r) => r.id));
      return rows.map((r) => toSession(r, counts.get(r.id) ?? 0));
    },

    async getSnapshot({ id }: { id: string }): Promise<SessionSnapshot> {
      const session = await getSession({ id });
      const [messages, runs, questions, closed] = await Promise.all([
        db.message.findMany({ where: { sessionId: id }, orderBy: NEWEST_FIRST, take: SNAPSHOT_MESSAGES }),
        db.run.findMany({ where: { sessionId: id }, orderBy: OLDEST_FIRST }),
        db.question.findMany({ where: { sessionId: id, status: "pending" }, orderBy: OLDEST_FIRST, include: QUESTION_WITH_ROOT }),
        db.question.findMany({ where: { sessionId: id, status: { not: "pending" } }, orderBy: { closedAt: "desc" }, take: SNAPSHOT_CLOSED_QUESTIONS, include: QUESTION_WITH_ROOT }),
      ]);
      const stored = messages.reverse().map(toMessage);
      // Read after the messages: a reply whose message was stored meanwhile is in one list, not both.
      const local = streams.of(id);
      // Only an active run streams: other nodes are asked only then.
      const elsewhere = streamsElsewhere && runs.some((r) => !isFinalRunStatus(r.status)) ? await streamsElsewhere(id) : [];
      return {
        session,
        messages: stored,
        runs: runs.map(toRun),
        pendingQuestions: questions.map(toQuestion),
        closedQuestions: closed.reverse().map(toQuestion),
        streaming: mergeStreams(local, elsewhere, stored),
      };
    },

    /** Stores and announces a message; `alongWith` writes something else in the same transaction (a journal entry). */
    async addMessage({
      sessionId,
      role,
      text,
      runId = null,
      stopped = false,
      alongWith,
      streamSeq,
      alongWithNow,
      storeWith,
    }: NewMessage & {
      alongWith?: (tx: Tx) => Promise<unknown>;
      /** `alongWith` on SQLite's direct lane (synchronous, in the message's transaction there); used when both the lane and it are given. */
      alongWithNow?: () => void;
      /** the journal position of the streamed reply this message completes */
      streamSeq?: number;
      /** Inserts the row with what goes with it in one statement of the caller's (PostgreSQL's lane), instead of `alongWith`. */
      storeWith?: (data: ReturnType<typeof messageData>) => Promise<Parameters<typeof toMessage>[0]>;
    }): Promise<Message> {
      const data = messageData({ sessionId, role, text, runId, stopped });
      const row =
        direct && alongWithNow
          ? await direct.transaction(() => {
              alongWithNow();
              return insertNow(data);
            })
          : storeWith
            ? await storeWith(data)
            : alongWith
              ? await db.$transaction(async (tx: Tx) => {
                  await alongWith(tx);
                  return tx.message.create({ data });
                })
              : await db.message.create({ data });
      // The stored message replaces the stream in every tab (and in later snapshots) at once.
      if (runId !== null && streamSeq !== undefined) streams.drop(sessionId, runId, streamSeq);
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

    /** The text so far of a streaming reply, or null. */
    streamingText: (sessionId: string, runId: string, seq: number): string | null => streams.textOf(sessionId, runId, seq),

    /** Stores a message inside someone else's transaction; announce it once that has committed. */
    recordMessage: async (tx: Tx, message: NewMessage): Promise<Message> => toMessage(await tx.message.create({ data: messageData(message) })),

    /** `recordMessage` inside a transaction on SQLite's direct lane; null when there is no such lane. */
    recordMessageNow: direct ? (message: NewMessage): Message => toMessage(insertNow(messageData(message))) : null,

    announceMessage,

    /**
     * Names an untitled session after its first real message: a slash command (`/coffee`) does not
     * name it, and a title a person chose is never replaced. Either way the session moves to the top.
     */
    async titleFromMessage({ id, text }: { id: string; text: string }): Promise<void> {
      const title = automaticTitle(text);
      const { count } = title === null ? { count: 0 } : await db.chatSession.updateMany({ where: { id, title: DEFAULT_TITLE, renamedAt: null, deletedAt: null }, data: { title } });
      if (count === 0) await db.chatSession.updateMany({ where: { id, deletedAt: null }, data: { updatedAt: new Date() } });
      await publish(id);
    },

    /** A person's title: kept from now on (no automatic title replaces it); every tab of the owner is told. */
    async renameSession({ id, title }: { id: string; title: string }): Promise<Session> {
      const { count } = await db.chatSession.updateMany({ where: { id, deletedAt: null }, data: { title, renamedAt: new Date() } });
      if (count === 0) throw notFound(id);
      const session = await getSession({ id });
      events.emit("session.updated", session);
      return session;
    },

    /**
     * The first step of a delete: from this write on the session is not found and nothing new
     * starts in it (a run's insert checks this in its own transaction). Exactly one of several
     * concurrent deletes gets here; the others are told the session is not found.
     */
    async markDeleted({ id }: { id: string }): Promise<{ ownerId: string }> {
      const row = await db.chatSession.findFirst({ where: { id, deletedAt: null }, select: { ownerId: true } });
      if (!row) throw notFound(id);
      const { count } = await db.chatSession.updateMany({ where: { id, deletedAt: null }, data: { deletedAt: new Date() } });
      if (count === 0) throw notFound(id);
      return row;
    },

    /** The last step of a delete: removes a session marked deleted with everything it holds (messages, runs, questions, rules). */
    async removeDeleted({ id }: { id: string }): Promise<void> {
      await db.chatSession.deleteMany({ where: { id, deletedAt: { not: null } } });
    },

    /** Sessions whose delete began but did not finish (the server stopped in between). */
    listDeleted: async (): Promise<string[]> => (await db.chatSession.findMany({ where: { deletedAt: { not: null } }, select: { id: true } })).map((r) => r.id),
  };
}

/** The title a chat message gives an untitled session: its first line of text, clipped; null for a slash command. */
export function automaticTitle(text: string): string | null {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "" || flat.startsWith("/")) return null;
  return flat.length > 60 ? `${flat.slice(0, 59).trimEnd()}…` : flat;
}

export type SessionService = ReturnType<typeof createSessionService>;
