import { sql, type Insertable, type QueryCreator } from "kysely";
import type { DB } from "../typed-sql";
import { jsonIds, statement, typedParam, valuesOf, type SqlEngine } from "../typed-sql";

/** A question's row as it is inserted. */
export type QuestionInsert = Required<Omit<Insertable<DB["Question"]>, "createdAt" | "closedAt" | "expiresAt">> & {
  createdAt: Date;
  closedAt: Date | null;
  expiresAt: Date | null;
};

/**
 * What a reply needs of its target, read at once: the question, its run's root and policy, its
 * session's owner, whether its delete has begun, and whether `person` is a member of it.
 */
const targetQuery = (q: QueryCreator<DB>, p: { id: string; person: string }) =>
  q
    .selectFrom("Question as q")
    .innerJoin("Run as r", "r.id", "q.runId")
    .innerJoin("ChatSession as s", "s.id", "q.sessionId")
    .selectAll("q")
    .select(["r.rootRunId as run_rootRunId", "r.policy as run_policy", "s.ownerId as session_ownerId", "s.deletedAt as session_deletedAt"])
    .select((eb) => eb.exists(eb.selectFrom("SessionMember as m").select("m.userId").whereRef("m.sessionId", "=", "q.sessionId").where("m.userId", "=", p.person)).as("session_member"))
    .where("q.id", "=", p.id);

export const target = statement(targetQuery);

/**
 * The target, its question held until the transaction ends: on PostgreSQL its row is locked as a
 * claim locks it, so concurrent replies and votes on it go one after another and each reads it as
 * the one before left it; SQLite's write lock holds it already.
 */
export const heldTarget = statement((q, p: { id: string; person: string }, engine) => (engine === "postgresql" ? targetQuery(q, p).forNoKeyUpdate("q") : targetQuery(q, p)));

/** A person's vote: their first counts, a second from another tab or surface changes nothing. */
export const insertVote = statement((q, p: { questionId: string; userId: string; decision: string; feedback: string | null; surface: string; createdAt: Date }) =>
  q
    .insertInto("QuestionVote")
    .values({ questionId: p.questionId, userId: p.userId, decision: p.decision, feedback: p.feedback, surface: p.surface, createdAt: p.createdAt })
    .onConflict((oc) => oc.columns(["questionId", "userId"]).doNothing()),
);

/** The votes on some questions (their ids as a JSON array), in the order they came. */
export const votesOf = statement((q, p: { ids: string }, engine) =>
  q
    .selectFrom("QuestionVote")
    .select(["questionId", "userId", "decision", "feedback", "surface", "createdAt"])
    .where("questionId", "in", jsonIds(engine, p.ids))
    .orderBy("createdAt")
    .orderBy("userId"),
);

/** Questions with their run's root (a question names it), oldest first. */
const withRoot = (q: QueryCreator<DB>) =>
  q.selectFrom("Question as q").innerJoin("Run as r", "r.id", "q.runId").selectAll("q").select("r.rootRunId as run_rootRunId").orderBy("q.createdAt").orderBy("q.id");

export const byId = statement((q, p: { id: string }) => withRoot(q).where("q.id", "=", p.id));
export const byPendingId = statement((q, p: { pendingId: string }) => withRoot(q).where("q.pendingId", "=", p.pendingId));
/** Every question a run asked, in journal order (its audit trail). */
export const ofRun = statement((q, p: { runId: string }) => withRoot(q).where("q.runId", "=", p.runId).clearOrderBy().orderBy("q.seq"));
export const pending = statement((q) => withRoot(q).where("q.status", "=", "pending"));
export const pendingInSession = statement((q, p: { sessionId: string }) => withRoot(q).where("q.status", "=", "pending").where("q.sessionId", "=", p.sessionId));
export const pendingOfRun = statement((q, p: { runId: string }) => withRoot(q).where("q.status", "=", "pending").where("q.runId", "=", p.runId));
/** A session's closed questions, most recently closed first. */
export const closedInSession = statement((q, p: { sessionId: string; limit: number }) =>
  withRoot(q).where("q.sessionId", "=", p.sessionId).where("q.status", "<>", "pending").clearOrderBy().orderBy("q.closedAt", "desc").limit(p.limit),
);
/** A session's closed questions asked before a place in it (its time, then its id; none: its newest), newest first. */
export const closedBefore = statement((q, p: { sessionId: string; beforeAt: Date | null; beforeId: string | null; limit: number }, engine) =>
  withRoot(q)
    .where("q.sessionId", "=", p.sessionId)
    .where("q.status", "<>", "pending")
    .where((eb) =>
      eb.or([
        eb(typedParam(engine, p.beforeAt, "timestamp(3)"), "is", null),
        eb("q.createdAt", "<", p.beforeAt as Date),
        eb.and([eb("q.createdAt", "=", p.beforeAt as Date), eb("q.id", "<", p.beforeId as string)]),
      ]),
    )
    .clearOrderBy()
    .orderBy("q.createdAt", "desc")
    .orderBy("q.id", "desc")
    .limit(p.limit),
);
export const pendingApprovalsInSession = statement((q, p: { sessionId: string }) =>
  withRoot(q).where("q.status", "=", "pending").where("q.sessionId", "=", p.sessionId).where("q.kind", "=", "approval"),
);
export const countPending = statement((q) =>
  q
    .selectFrom("Question")
    .select(sql<number>`CAST(COUNT(*) AS INTEGER)`.as("n"))
    .where("status", "=", "pending"),
);
/** Pending questions whose `at` time is set (and before `before`, when given): what a timer waits for. */
const pendingWith = <C extends "expiresAt" | "escalateAt">(q: QueryCreator<DB>, at: C, before: Date | null, engine: SqlEngine) =>
  q
    .selectFrom("Question")
    .select(["id", at])
    .where("status", "=", "pending")
    .where(at, "is not", null)
    .where((eb) => eb.or([eb(typedParam(engine, before, "timestamp(3)"), "is", null), eb(sql.ref<Date>(at), "<", before as Date)]));

/** Pending questions with an escalation step due (before `before`, when given), for the escalation timers. */
export const escalating = statement((q, p: { before: Date | null }, engine) => pendingWith(q, "escalateAt", p.before, engine));

/** Takes escalation step `from` of a pending question (once, whoever's timer fires first), and sets when the next one is due. */
export const escalateStep = statement((q, p: { id: string; from: number; to: number; nextAt: Date | null }) =>
  q.updateTable("Question").set({ escalated: p.to, escalateAt: p.nextAt }).where("id", "=", p.id).where("status", "=", "pending").where("escalated", "=", p.from),
);

/** Pending questions that expire (before `before`, when given), for the expiry timers. */
export const expiring = statement((q, p: { before: Date | null }, engine) => pendingWith(q, "expiresAt", p.before, engine));
export const runPolicyAndRoot = statement((q, p: { runId: string }) => q.selectFrom("Run").select(["policy", "rootRunId"]).where("id", "=", p.runId));

/** What counts against a run's question limit: every question and approval a person was asked (not those a rule settled at once). */
export const countAsked = statement((q, p: { runId: string }) =>
  q
    .selectFrom("Question")
    .select(sql<number>`CAST(COUNT(*) AS INTEGER)`.as("n"))
    .where("runId", "=", p.runId)
    .where((eb) => eb.or([eb("kind", "<>", "approval"), eb("closedBy", "is", null), eb("closedBy", "<>", "rule")])),
);

interface ClaimParams {
  id: string;
  status: string;
  closedBy: string;
  closedAt: Date;
  answer: string | null;
  feedback: string | null;
  closedByUser: string | null;
  closedByRule: string | null;
  editedInput: string | null;
}

const claimPending = (q: QueryCreator<DB>, p: ClaimParams) =>
  q
    .updateTable("Question")
    .set({
      status: p.status,
      closedBy: p.closedBy,
      closedAt: p.closedAt,
      answer: p.answer,
      feedback: p.feedback,
      closedByUser: p.closedByUser,
      closedByRule: p.closedByRule,
      editedInput: p.editedInput,
      escalateAt: null,
    })
    .where("id", "=", p.id)
    .where("status", "=", "pending");

/** Claim-once: the conditional update that moves a pending question to how it closed. */
export const claim = statement((q, p: ClaimParams) => claimPending(q, p));

export const pendingIdsOf = statement((q, p: { runId: string }) => q.selectFrom("Question").select("id").where("runId", "=", p.runId).where("status", "=", "pending"));

/** The first pending question of a session. */
export const firstPending = statement((q, p: { sessionId: string }) =>
  q.selectFrom("Question").select(["id", "runId", "prompt"]).where("sessionId", "=", p.sessionId).where("status", "=", "pending").orderBy("createdAt").orderBy("id").limit(1),
);

/** What was asked, and how the question stands. */
const ASKED = [
  "id",
  "sessionId",
  "runId",
  "owner",
  "seq",
  "pendingId",
  "targetDigest",
  "replySchema",
  "kind",
  "prompt",
  "options",
  "multi",
  "allowCustom",
  "detail",
  "defaultValue",
  "approval",
  "answerers",
  "approvals",
  "escalate",
] as const;
const STANDING = ["status", "answer", "feedback", "closedBy", "closedAt", "createdAt", "expiresAt", "closedByUser", "closedByRule", "escalated", "escalateAt", "editedInput"] as const;

/** A question's row (inside the transaction that checked its run still holds the lease: heldRun). */
export const insertQuestion = statement((q, p: QuestionInsert) => q.insertInto("Question").values(valuesOf(p, [...ASKED, ...STANDING])));
