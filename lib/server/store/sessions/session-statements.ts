import { sql, type ExpressionBuilder, type Insertable, type QueryCreator } from "kysely";
import type { DB, SqlEngine } from "../typed-sql";
import { statement, typedParam } from "../typed-sql";

/** A message's row as it is inserted (createdAt given: every lane stores the same). */
export type MessageInsert = Required<Insertable<DB["Message"]>> & { createdAt: Date };

/** A session's agent and system messages. */
const said = (q: QueryCreator<DB>, sessionId: string) => q.selectFrom("Message").where("sessionId", "=", sessionId).where("role", "in", ["agent", "system"]);

/** Whether `person` is a member of the session `s` (its owner is not one: see ChatSession.ownerId). */
const memberOf = (eb: ExpressionBuilder<DB & { s: DB["ChatSession"] }, "s">, person: string) =>
  eb.exists(eb.selectFrom("SessionMember as m").select("m.userId").whereRef("m.sessionId", "=", "s.id").where("m.userId", "=", person));

/**
 * Sessions not being deleted, each with its pending questions counted and its members' names
 * (space-separated, no order; null for none): who besides its owner sees it and hears of it.
 */
const counted = (q: QueryCreator<DB>, engine: SqlEngine) =>
  q
    .selectFrom("ChatSession as s")
    .selectAll("s")
    .select((eb) => [
      eb
        .selectFrom("Question")
        .select(sql<number>`CAST(COUNT(*) AS INTEGER)`.as("n"))
        .whereRef("Question.sessionId", "=", "s.id")
        .where("Question.status", "=", "pending")
        .as("pendingCount"),
      eb
        .selectFrom("SessionMember as m")
        .select((m) => m.fn.agg<string | null>(engine === "postgresql" ? "string_agg" : "group_concat", ["m.userId", sql.lit(" ")]).as("names"))
        .whereRef("m.sessionId", "=", "s.id")
        .as("memberNames"),
    ])
    .where("s.deletedAt", "is", null);

export const liveSession = statement((q, p: { id: string }, engine) => counted(q, engine).where("s.id", "=", p.id));

/** The sessions a person owns or is a member of (every owner's when `ownerId` is null), most recently updated first. */
export const sessionsOf = statement((q, p: { ownerId: string | null; limit: number }, engine) =>
  counted(q, engine)
    .where((eb) => eb.or([eb(typedParam(engine, p.ownerId, "text"), "is", null), eb("s.ownerId", "=", p.ownerId as string), memberOf(eb, p.ownerId as string)]))
    .orderBy("s.updatedAt", "desc")
    .limit(p.limit),
);

/** An owner's session named by its id or, failing that, its most recent one with that title (not being deleted). */
export const sessionNamed = statement((q, p: { ownerId: string; name: string }) =>
  q
    .selectFrom("ChatSession")
    .select("id")
    .where("ownerId", "=", p.ownerId)
    .where("deletedAt", "is", null)
    .where((eb) => eb.or([eb("id", "=", p.name), eb("title", "=", p.name)]))
    .orderBy((eb) => eb.case().when("id", "=", p.name).then(eb.lit(0)).else(eb.lit(1)).end())
    .orderBy("updatedAt", "desc")
    .limit(1),
);

/** Who a session belongs to and whether its delete has begun (a run's owner). */
export const sessionOwner = statement((q, p: { id: string }) => q.selectFrom("ChatSession").select(["ownerId", "deletedAt"]).where("id", "=", p.id));

/** Who a session belongs to, whether `viewer` is one of its members, and whether its delete has begun (visibility, ownership). */
export const sessionAccess = statement((q, p: { id: string; viewer: string }) =>
  q
    .selectFrom("ChatSession as s")
    .select((eb) => ["s.ownerId", "s.deletedAt", memberOf(eb, p.viewer).as("member")])
    .where("s.id", "=", p.id),
);

/** A question's session's owner, whether `viewer` is one of its members, and whether that session's delete has begun. */
export const questionAccess = statement((q, p: { id: string; viewer: string }) =>
  q
    .selectFrom("Question as q")
    .innerJoin("ChatSession as s", "s.id", "q.sessionId")
    .select((eb) => ["s.ownerId", "s.deletedAt", memberOf(eb, p.viewer).as("member")])
    .where("q.id", "=", p.id),
);

/** A question's owner, whether its session's delete has begun, and who started its run (JSON: a RunStarter). */
export const questionAskedBy = statement((q, p: { id: string }) =>
  q
    .selectFrom("Question as q")
    .innerJoin("Run as r", "r.id", "q.runId")
    .innerJoin("ChatSession as s", "s.id", "q.sessionId")
    .select(["s.ownerId", "s.deletedAt", "r.startedBy"])
    .where("q.id", "=", p.id),
);

/** A run's owner, whether `viewer` is a member of its session, and whether its session's delete has begun. */
export const runAccess = statement((q, p: { id: string; viewer: string }) =>
  q
    .selectFrom("Run as r")
    .innerJoin("ChatSession as s", "s.id", "r.sessionId")
    .select((eb) => ["r.ownerId", "s.deletedAt", memberOf(eb, p.viewer).as("member")])
    .where("r.id", "=", p.id),
);

export const insertSession = statement((q, p: { id: string; ownerId: string; title: string; at: Date }) =>
  q.insertInto("ChatSession").values({ id: p.id, ownerId: p.ownerId, title: p.title, createdAt: p.at, updatedAt: p.at }).returningAll(),
);

/** A session not being deleted, to change: every change moves it to the top of its owner's list. */
const live = (q: QueryCreator<DB>, id: string) => q.updateTable("ChatSession").where("id", "=", id).where("deletedAt", "is", null);

/** An automatic title: only while the session has none a person chose. */
export const autoTitle = statement((q, p: { id: string; title: string; untitled: string; at: Date }) =>
  live(q, p.id).set({ title: p.title, updatedAt: p.at }).where("title", "=", p.untitled).where("renamedAt", "is", null),
);

export const touch = statement((q, p: { id: string; at: Date }) => live(q, p.id).set({ updatedAt: p.at }));

export const rename = statement((q, p: { id: string; title: string; at: Date }) => live(q, p.id).set({ title: p.title, renamedAt: p.at, updatedAt: p.at }));

/** Begins a delete: the owner, when this write began it. */
export const markDeleted = statement((q, p: { id: string; at: Date }) => live(q, p.id).set({ deletedAt: p.at, updatedAt: p.at }).returning("ownerId"));

/** Removes a session marked deleted; its messages, runs, questions and rules go with it (ON DELETE CASCADE). */
export const removeDeleted = statement((q, p: { id: string }) => q.deleteFrom("ChatSession").where("id", "=", p.id).where("deletedAt", "is not", null));

export const deletedIds = statement((q) => q.selectFrom("ChatSession").select("id").where("deletedAt", "is not", null));

export const insertMessage = statement((q, p: MessageInsert) =>
  q.insertInto("Message").values({ id: p.id, sessionId: p.sessionId, runId: p.runId, role: p.role, text: p.text, stopped: p.stopped, sender: p.sender, createdAt: p.createdAt }),
);

/** A session's newest messages, newest first. */
export const newestMessages = statement((q, p: { sessionId: string; limit: number }) =>
  q.selectFrom("Message").selectAll().where("sessionId", "=", p.sessionId).orderBy("createdAt", "desc").orderBy("id", "desc").limit(p.limit),
);

/** A session's messages before a place in it (its time, then its id), newest first. */
export const messagesBefore = statement((q, p: { sessionId: string; beforeAt: Date; beforeId: string; limit: number }) =>
  q
    .selectFrom("Message")
    .selectAll()
    .where("sessionId", "=", p.sessionId)
    .where("createdAt", "<=", p.beforeAt)
    .where((eb) => eb.or([eb("createdAt", "<", p.beforeAt), eb("id", "<", p.beforeId)]))
    .orderBy("createdAt", "desc")
    .orderBy("id", "desc")
    .limit(p.limit),
);

/** A session's newest user and agent messages (a chat turn's context), newest first. */
export const chatHistory = statement((q, p: { sessionId: string; limit: number }) =>
  q.selectFrom("Message").select(["role", "text"]).where("sessionId", "=", p.sessionId).where("role", "in", ["user", "agent"]).orderBy("createdAt", "desc").orderBy("id", "desc").limit(p.limit),
);

/** A run's messages, oldest first. */
export const messagesOfRun = statement((q, p: { runId: string }) => q.selectFrom("Message").selectAll().where("runId", "=", p.runId).orderBy("createdAt").orderBy("id"));

/** What the agent and the system said in a session for a run, oldest first. */
export const saidInRun = statement((q, p: { sessionId: string; runId: string }) => said(q, p.sessionId).select("text").where("runId", "=", p.runId).orderBy("createdAt").orderBy("id"));

/** The newest agent or system message of a session (a channel's cursor). */
export const lastSaid = statement((q, p: { sessionId: string }) => said(q, p.sessionId).select("id").orderBy("createdAt", "desc").orderBy("id", "desc").limit(1));

/** Where a cursor (a message of the session) stands. */
export const messageAt = statement((q, p: { id: string; sessionId: string }) => q.selectFrom("Message").select(["id", "createdAt"]).where("id", "=", p.id).where("sessionId", "=", p.sessionId));

/** A session's agent and system messages after a position (none: from the first), oldest first. */
export const saidAfter = statement((q, p: { sessionId: string; afterAt: Date | null; afterId: string | null; limit: number }, engine) =>
  said(q, p.sessionId)
    .select(["id", "role", "text", "createdAt"])
    .where((eb) =>
      eb.or([
        eb(typedParam(engine, p.afterAt, "timestamp(3)"), "is", null),
        eb("createdAt", ">", p.afterAt as Date),
        eb.and([eb("createdAt", "=", p.afterAt as Date), eb("id", ">", p.afterId as string)]),
      ]),
    )
    .orderBy("createdAt")
    .orderBy("id")
    .limit(p.limit),
);
