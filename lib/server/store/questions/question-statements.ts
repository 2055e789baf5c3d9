import { sql, type Insertable, type QueryCreator } from "kysely";
import type { DB } from "../typed-sql";
import { statement, typedParam } from "../typed-sql";

/** A question's row as it is inserted. */
export type QuestionInsert = Required<Omit<Insertable<DB["Question"]>, "createdAt" | "closedAt" | "expiresAt">> & {
  createdAt: Date;
  closedAt: Date | null;
  expiresAt: Date | null;
};

/** The question's journal entry: the digest replay must match, and a name to read it by. */
export interface QuestionJournal {
  name: string;
  digest: string;
}

type InsertParams = QuestionInsert & QuestionJournal & { epoch: number | null };

/** What a reply needs of its target, read at once: the question, its run's root and policy, its session's owner and whether its delete has begun. */
export const target = statement((q, p: { id: string }) =>
  q
    .selectFrom("Question as q")
    .innerJoin("Run as r", "r.id", "q.runId")
    .innerJoin("ChatSession as s", "s.id", "q.sessionId")
    .selectAll("q")
    .select(["r.rootRunId as run_rootRunId", "r.policy as run_policy", "s.ownerId as session_ownerId", "s.deletedAt as session_deletedAt"])
    .where("q.id", "=", p.id),
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
export const pendingApprovalsInSession = statement((q, p: { sessionId: string }) =>
  withRoot(q).where("q.status", "=", "pending").where("q.sessionId", "=", p.sessionId).where("q.kind", "=", "approval"),
);
export const countPending = statement((q) =>
  q
    .selectFrom("Question")
    .select(sql<number>`CAST(COUNT(*) AS INTEGER)`.as("n"))
    .where("status", "=", "pending"),
);
/** Pending questions that expire (before `before`, when given), for the expiry timers. */
export const expiring = statement((q, p: { before: Date | null }, engine) =>
  q
    .selectFrom("Question")
    .select(["id", "expiresAt"])
    .where("status", "=", "pending")
    .where("expiresAt", "is not", null)
    .where((eb) => eb.or([eb(typedParam(engine, p.before, "timestamp(3)"), "is", null), eb("expiresAt", "<", p.before)])),
);
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
}

const claimPending = (q: QueryCreator<DB>, p: ClaimParams) =>
  q.updateTable("Question").set({ status: p.status, closedBy: p.closedBy, closedAt: p.closedAt, answer: p.answer, feedback: p.feedback }).where("id", "=", p.id).where("status", "=", "pending");

/** Claim-once: the conditional update that moves a pending question to how it closed. */
export const claim = statement((q, p: ClaimParams) => claimPending(q, p));

export const pendingIdsOf = statement((q, p: { runId: string }) => q.selectFrom("Question").select("id").where("runId", "=", p.runId).where("status", "=", "pending"));

/** The first pending question of a session. */
export const firstPending = statement((q, p: { sessionId: string }) =>
  q.selectFrom("Question").select(["id", "runId", "prompt"]).where("sessionId", "=", p.sessionId).where("status", "=", "pending").orderBy("createdAt").orderBy("id").limit(1),
);

/**
 * A question, inserted only while its run holds `epoch` (null: runs are not leased; the run must
 * still be there). On PostgreSQL the run's row stays locked until the commit, so a take waits.
 */
const insertHeld = (q: QueryCreator<DB>, p: InsertParams, engine: "sqlite" | "postgresql") => {
  const text = (value: string | null) => typedParam(engine, value, "text");
  const flag = (value: boolean) => (engine === "postgresql" ? sql<boolean>`CAST(${value} AS BOOLEAN)` : sql<boolean>`${value}`);
  const time = (value: Date | null) => typedParam(engine, value, "timestamp(3)");
  const held = q
    .selectFrom("Run")
    .select([
      text(p.id).as("id"),
      "Run.sessionId",
      "Run.id as runId",
      text(p.owner).as("owner"),
      typedParam(engine, p.seq, "integer").as("seq"),
      text(p.pendingId).as("pendingId"),
      text(p.targetDigest).as("targetDigest"),
      text(p.replySchema).as("replySchema"),
      text(p.kind).as("kind"),
      text(p.prompt).as("prompt"),
      text(p.options).as("options"),
      flag(p.multi).as("multi"),
      flag(p.allowCustom).as("allowCustom"),
      text(p.detail).as("detail"),
      text(p.defaultValue).as("defaultValue"),
      text(p.approval).as("approval"),
      text(p.status).as("status"),
      text(p.answer).as("answer"),
      text(p.feedback).as("feedback"),
      text(p.closedBy).as("closedBy"),
      time(p.closedAt).as("closedAt"),
      time(p.createdAt).as("createdAt"),
      time(p.expiresAt).as("expiresAt"),
    ])
    .where("Run.id", "=", p.runId)
    .where((eb) => eb.or([eb(sql<number | null>`CAST(${p.epoch} AS INTEGER)`, "is", null), eb("Run.leaseEpoch", "=", p.epoch as number)]));
  return q
    .insertInto("Question")
    .columns([
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
      "status",
      "answer",
      "feedback",
      "closedBy",
      "closedAt",
      "createdAt",
      "expiresAt",
    ])
    .expression(engine === "postgresql" ? held.forShare() : held);
};

/** SQLite: the question (then its journal entry, in the same transaction). */
export const insertQuestion = statement((q, p: InsertParams, engine) => insertHeld(q, p, engine));

/** SQLite: the question's journal entry. */
export const insertQuestionJournal = statement((q, p: { runId: string; seq: number; name: string; digest: string; id: string; createdAt: Date }) =>
  q.insertInto("JournalEntry").values({ runId: p.runId, seq: p.seq, kind: "question", name: p.name, digest: p.digest, questionId: p.id, createdAt: p.createdAt }),
);

/** PostgreSQL: the question and its journal entry in one statement (no row: the run is gone or lost its epoch). */
export const insertQuestionJournaled = statement((q, p: InsertParams, engine) =>
  q
    .with("asked", (db) => insertHeld(db, p, engine).returning(["id", "runId", "seq", "createdAt"]))
    .insertInto("JournalEntry")
    .columns(["runId", "seq", "kind", "name", "digest", "questionId", "createdAt"])
    .expression((eb) =>
      eb
        .selectFrom("asked")
        .select([
          "asked.runId",
          "asked.seq",
          sql.lit("question").as("kind"),
          typedParam(engine, p.name, "text").as("name"),
          typedParam(engine, p.digest, "text").as("digest"),
          "asked.id as questionId",
          "asked.createdAt",
        ]),
    )
    .returning("seq"),
);
