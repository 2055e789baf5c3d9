import { sql, type ExpressionBuilder, type Insertable, type Selectable } from "kysely";
import { ACTIVE_RUN_STATUSES } from "../../../protocol/entities";
import type { DB } from "../typed-sql";
import { jsonIds, statement, typedParam, valuesOf } from "../typed-sql";

/** A run's row as stored. */
export type RunRow = Selectable<DB["Run"]>;

const ACTIVE = [...ACTIVE_RUN_STATUSES];

/**
 * The fence of a write made by the node that executes a run (see cluster/lease-fence.ts): the run
 * still holds `epoch`, or `epoch` is null (runs are not leased: nothing is checked).
 */
const holds = (eb: ExpressionBuilder<DB, "Run">, epoch: number | null) => eb.or([eb(sql<number | null>`CAST(${epoch} AS INTEGER)`, "is", null), eb("Run.leaseEpoch", "=", epoch as number)]);

/** A run's own pending question (`runId` its id). */
const ownPending = (eb: ExpressionBuilder<DB, "Run">, runId: string) =>
  eb.exists(eb.selectFrom("Question").select(sql.lit(1).as("one")).where("Question.runId", "=", runId).where("Question.status", "=", "pending"));

/** An active child run it called and waits for. */
const activeChild = (eb: ExpressionBuilder<DB, "Run">, runId: string) =>
  eb.exists(
    eb
      .selectFrom("JournalEntry as j")
      .innerJoin("Run as c", "c.id", "j.childRunId")
      .select(sql.lit(1).as("one"))
      .where("j.runId", "=", runId)
      .where("j.kind", "=", "call")
      .where("c.status", "in", ACTIVE),
  );

export const findRun = statement((q, p: { id: string }) => q.selectFrom("Run").selectAll().where("id", "=", p.id));

/** What a run waits on, and its stored status (no row status: the run is gone). */
export const waitingOn = statement((q, p: { id: string }) =>
  q
    .selectFrom("Run")
    .select((eb) => [ownPending(eb, p.id).as("questions"), activeChild(eb, p.id).as("children"), "status"])
    .where("id", "=", p.id),
);

/** Moves an active run between running and waiting_input with the active time it spent: the run as it is now, when it moved. */
export const moveWaiting = statement((q, p: { id: string; from: string; to: string; activeMs: number; at: Date; epoch: number | null }) =>
  q
    .updateTable("Run")
    .set((eb) => ({ status: p.to, activeMs: eb("activeMs", "+", p.activeMs), updatedAt: p.at }))
    .where("id", "=", p.id)
    .where("status", "=", p.from)
    .where((eb) => holds(eb, p.epoch))
    .returningAll(),
);

export const addActiveMs = statement((q, p: { id: string; ms: number; at: Date; epoch: number | null }) =>
  q
    .updateTable("Run")
    .set((eb) => ({ activeMs: eb("activeMs", "+", p.ms), updatedAt: p.at }))
    .where("id", "=", p.id)
    .where((eb) => holds(eb, p.epoch))
    .returning("id"),
);

/** Counts a worker start (its progress line starts over); an active run's status becomes `status` (a run that ended keeps its own): the run as it is now. */
export const markAttempt = statement((q, p: { id: string; at: Date; epoch: number | null; status: string }) =>
  q
    .updateTable("Run")
    .set((eb) => ({
      attempts: eb("attempts", "+", 1),
      progress: null,
      updatedAt: p.at,
      status: eb.case().when("status", "in", ["running", "waiting_input"]).then(p.status).else(eb.ref("status")).end(),
    }))
    .where("id", "=", p.id)
    .where((eb) => holds(eb, p.epoch))
    .returningAll(),
);

/**
 * Ends a run if it is still active, with the active time it spent last, and lets go of its lease.
 * `node`: unfenced on leased runs, only while no other node holds the lease (null: not checked).
 */
export const finish = statement((q, p: { id: string; status: string; result: string | null; error: string | null; activeMs: number; at: Date; epoch: number | null; node: string | null }) =>
  q
    .updateTable("Run")
    .set((eb) => ({
      status: p.status,
      result: p.result,
      error: p.error,
      progress: null,
      finishedAt: p.at,
      turnOf: null,
      leaseOwner: null,
      leaseUntil: null,
      activeMs: eb("activeMs", "+", p.activeMs),
      updatedAt: p.at,
    }))
    .where("id", "=", p.id)
    .where("status", "in", ACTIVE)
    .where((eb) => holds(eb, p.epoch))
    .where((eb) => eb.or([eb(sql<string | null>`CAST(${p.node} AS TEXT)`, "is", null), eb("leaseOwner", "is", null), eb("leaseOwner", "=", p.node as string)]))
    .returning("id"),
);

/** An active run's progress line (no row: the run is not active, or gone). */
export const progressOf = statement((q, p: { id: string }) => q.selectFrom("Run").select("progress").where("id", "=", p.id).where("status", "in", ACTIVE));

/** Sets an active run's progress line when it differs. */
export const setProgress = statement((q, p: { id: string; progress: string | null; at: Date; epoch: number | null }) =>
  q
    .updateTable("Run")
    .set({ progress: p.progress, updatedAt: p.at })
    .where("id", "=", p.id)
    .where("status", "in", ACTIVE)
    .where("progress", "is distinct from", p.progress)
    .where((eb) => holds(eb, p.epoch))
    .returning("id"),
);

export const activeChildIds = statement((q, p: { parentRunId: string }) => q.selectFrom("Run").select("id").where("parentRunId", "=", p.parentRunId).where("status", "in", ACTIVE));

/** The run, while it holds `epoch` (null: runs are not leased; it must still be there). On PostgreSQL its row stays locked until the commit, so a take waits. */
export const heldRun = statement((q, p: { id: string; epoch: number | null }, engine) => {
  const held = q
    .selectFrom("Run")
    .select(["id", "rootRunId"])
    .where("id", "=", p.id)
    .where((eb) => holds(eb, p.epoch));
  return engine === "postgresql" ? held.forShare() : held;
});

export const leaseEpochOf = statement((q, p: { id: string }) => q.selectFrom("Run").select("leaseEpoch").where("id", "=", p.id));

/** A run's journal with what each question and call came to. */
export const journal = statement((q, p: { runId: string }) =>
  q
    .selectFrom("JournalEntry as j")
    .leftJoin("Question as q", "q.id", "j.questionId")
    .leftJoin("Run as c", "c.id", "j.childRunId")
    .select([
      "j.seq",
      "j.kind",
      "j.digest",
      "j.output",
      "j.questionId",
      "j.childRunId",
      "q.status as questionStatus",
      "q.answer as questionAnswer",
      "q.feedback as questionFeedback",
      "q.editedInput as questionEditedInput",
      "c.status as childStatus",
      "c.result as childResult",
      "c.error as childError",
    ])
    .where("j.runId", "=", p.runId)
    .orderBy("j.seq"),
);

/** A journal entry other than a step's (written inside the transaction that checked the run holds its lease). */
export type JournalInsert = Required<Insertable<DB["JournalEntry"]>> & { createdAt: Date };
/** A journal entry: `output`, `questionId` and `childRunId` null unless given. */
export const journalEntry = (entry: Omit<JournalInsert, "output" | "questionId" | "childRunId"> & Partial<JournalInsert>): JournalInsert => ({
  output: null,
  questionId: null,
  childRunId: null,
  ...entry,
});
export const insertJournal = statement((q, p: JournalInsert) =>
  q.insertInto("JournalEntry").values(valuesOf(p, ["runId", "seq", "kind", "name", "digest", "output", "questionId", "childRunId", "createdAt"])),
);

export const liveSession = statement((q, p: { id: string }) => q.selectFrom("ChatSession").select("id").where("id", "=", p.id).where("deletedAt", "is", null));

/** A run's row as it is inserted. */
export type RunInsert = Required<Omit<Insertable<DB["Run"]>, "result" | "progress" | "leaseOwner" | "leaseUntil" | "leaseEpoch">> & { createdAt: Date; updatedAt: Date };
const RUN_STARTED = ["id", "sessionId", "ownerId", "functionName", "input", "policy", "canAsk", "parentRunId", "parentSeq", "rootRunId", "turnOf", "startedBy", "starterId"] as const;
const RUN_STANDING = ["status", "error", "finishedAt", "attempts", "activeMs", "createdAt", "updatedAt"] as const;
export const insertRun = statement((q, p: RunInsert) =>
  q
    .insertInto("Run")
    .values(valuesOf(p, [...RUN_STARTED, ...RUN_STANDING]))
    .returningAll(),
);

/** A step's journal entry, written only while the run holds `epoch` (on PostgreSQL, the run's row is locked until it commits, so a take waits for it). */
export const insertStep = statement((q, p: { runId: string; seq: number; name: string; digest: string; output: string; at: Date; epoch: number | null }, engine) => {
  const held = q
    .selectFrom("Run")
    .select([
      "id as runId",
      typedParam(engine, p.seq, "integer").as("seq"),
      sql.lit("step").as("kind"),
      typedParam(engine, p.name, "text").as("name"),
      typedParam(engine, p.digest, "text").as("digest"),
      typedParam(engine, p.output, "text").as("output"),
      typedParam(engine, p.at, "timestamp(3)").as("createdAt"),
    ])
    .where("id", "=", p.runId)
    .where((eb) => holds(eb, p.epoch));
  return q
    .insertInto("JournalEntry")
    .columns(["runId", "seq", "kind", "name", "digest", "output", "createdAt"])
    .expression(engine === "postgresql" ? held.forShare() : held)
    .returning("seq");
});

const oldestFirst = <Q extends { orderBy(column: "createdAt" | "id"): Q }>(query: Q) => query.orderBy("createdAt").orderBy("id");
export const runsOfSession = statement((q, p: { sessionId: string }) => oldestFirst(q.selectFrom("Run").selectAll().where("sessionId", "=", p.sessionId)));
/** A session's runs that started in a stretch of time (`from` inclusive, `to` exclusive; null: open), oldest first. */
export const runsBetween = statement((q, p: { sessionId: string; from: Date | null; to: Date | null }, engine) =>
  oldestFirst(
    q
      .selectFrom("Run")
      .selectAll()
      .where("sessionId", "=", p.sessionId)
      .where((eb) => eb.or([eb(typedParam(engine, p.from, "timestamp(3)"), "is", null), eb("createdAt", ">=", p.from as Date)]))
      .where((eb) => eb.or([eb(typedParam(engine, p.to, "timestamp(3)"), "is", null), eb("createdAt", "<", p.to as Date)])),
  ),
);
/** A session's runs by their ids (a JSON array). */
export const runsByIds = statement((q, p: { sessionId: string; ids: string }, engine) =>
  q.selectFrom("Run").selectAll().where("sessionId", "=", p.sessionId).where("id", "in", jsonIds(engine, p.ids)),
);
/** Active runs (parents before their children: a child is created after its parent). */
export const active = statement((q) => oldestFirst(q.selectFrom("Run").selectAll().where("status", "in", ACTIVE)));
export const activeInSession = statement((q, p: { sessionId: string }) => oldestFirst(q.selectFrom("Run").selectAll().where("status", "in", ACTIVE).where("sessionId", "=", p.sessionId)));
export const turnOf = statement((q, p: { turnOf: string }) => q.selectFrom("Run").select("id").where("turnOf", "=", p.turnOf));
/** A run of this function started in the session at or after `since`, other than the failed turn and its retry. */
export const startedSince = statement((q, p: { sessionId: string; functionName: string; since: Date; failed: string; retry: string }) =>
  q
    .selectFrom("Run")
    .select("id")
    .where("sessionId", "=", p.sessionId)
    .where("functionName", "=", p.functionName)
    .where("id", "not in", [p.failed, p.retry])
    .where("createdAt", ">=", p.since)
    .limit(1),
);

/** A run and the other runs of its tree (`rootRunId`), each with its parent. */
export const runTree = statement((q, p: { id: string; rootRunId: string }) =>
  q
    .selectFrom("Run")
    .select(["id", "parentRunId"])
    .where((eb) => eb.or([eb("id", "=", p.id), eb("rootRunId", "=", p.rootRunId)])),
);

/** A run's journal, in order. */
export const journalOf = statement((q, p: { runId: string }) =>
  q.selectFrom("JournalEntry").select(["seq", "kind", "name", "questionId", "childRunId", "output"]).where("runId", "=", p.runId).orderBy("seq"),
);
