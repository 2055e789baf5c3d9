import { sql, type Selectable } from "kysely";
import type { WebhookDelivery } from "../../../protocol/webhooks";
import { dbNow, dbNowPlusMs } from "../db-clock";
import type { SqlExecutor } from "../sql-executor";
import { statement, type DB } from "../typed-sql";

type DeliveryRow = Selectable<DB["WebhookDelivery"]>;

/** A new delivery, due at once, given up a window after now; a question's second one changes nothing. */
const insertDelivery = statement((q, p: { id: string; questionId: string; url: string; payload: string; windowMs: number }, engine) =>
  q
    .insertInto("WebhookDelivery")
    .values({
      id: p.id,
      questionId: p.questionId,
      url: p.url,
      payload: p.payload,
      status: "pending",
      attempts: 0,
      nextAttemptAt: dbNow(engine),
      giveUpAt: dbNowPlusMs(engine, p.windowMs),
      createdAt: dbNow(engine),
    })
    .onConflict((oc) => oc.column("questionId").doNothing()),
);

const dueDeliveries = statement((q, p: { limit: number }, engine) =>
  q.selectFrom("WebhookDelivery").select(["id", "url", "payload", "attempts"]).where("status", "=", "pending").where("nextAttemptAt", "<=", dbNow(engine)).orderBy("nextAttemptAt").limit(p.limit),
);

/**
 * Starts an attempt: one conditional update, so of several nodes that saw the row due, one sends.
 * The attempt holds the row for `holdMs`; a node that dies sending leaves it due again after that.
 */
const claimAttempt = statement((q, p: { id: string; attempts: number; holdMs: number }, engine) =>
  q
    .updateTable("WebhookDelivery")
    .set((eb) => ({ attempts: eb("attempts", "+", 1), nextAttemptAt: dbNowPlusMs(engine, p.holdMs) }))
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts)
    .where("status", "=", "pending")
    .where("nextAttemptAt", "<=", dbNow(engine)),
);

const markDelivered = statement((q, p: { id: string; attempts: number }, engine) =>
  q
    .updateTable("WebhookDelivery")
    .set({ status: "delivered", deliveredAt: dbNow(engine), lastError: null })
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts)
    .where("status", "=", "pending"),
);

/** A failed attempt: the next is due after `delayMs`, unless that is past the delivery's window (then it has failed for good). */
const markAttemptFailed = statement((q, p: { id: string; attempts: number; error: string; delayMs: number }, engine) =>
  q
    .updateTable("WebhookDelivery")
    .set({
      lastError: p.error,
      nextAttemptAt: dbNowPlusMs(engine, p.delayMs),
      status: sql<string>`CASE WHEN ${dbNowPlusMs(engine, p.delayMs)} > ${sql.ref("giveUpAt")} THEN 'failed' ELSE 'pending' END`,
    })
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts)
    .where("status", "=", "pending"),
);

const deliveriesOf = statement((q, p: { questionId: string }) => q.selectFrom("WebhookDelivery").selectAll().where("questionId", "=", p.questionId).orderBy("createdAt"));

const deliveriesOfRun = statement((q, p: { runId: string }) =>
  q.selectFrom("WebhookDelivery as d").innerJoin("Question as q", "q.id", "d.questionId").selectAll("d").where("q.runId", "=", p.runId).orderBy("d.createdAt").orderBy("d.id"),
);

/**
 * Questions of `functionName` runs whose input names a callbackUrl, settled within the window,
 * that have no delivery: what a crash between a settlement and its enqueue left behind.
 */
const settledWithoutDelivery = statement((q, p: { functionName: string; sinceMs: number; limit: number }, engine) =>
  q
    .selectFrom("Question as q")
    .innerJoin("Run as r", "r.id", "q.runId")
    .select(["q.id", "r.input"])
    .where("r.functionName", "=", p.functionName)
    .where("q.status", "<>", "pending")
    .where("q.closedAt", ">=", dbNowPlusMs(engine, p.sinceMs))
    // JSON text: a key is `"callbackUrl":`, while a quote inside a string value is escaped.
    .where("r.input", "like", sql<string>`'%"callbackUrl":%'`)
    .where((eb) => eb.not(eb.exists(eb.selectFrom("WebhookDelivery as d").select("d.id").whereRef("d.questionId", "=", "q.id"))))
    .orderBy("q.closedAt")
    .limit(p.limit),
);

const runOf = statement((q, p: { runId: string }) => q.selectFrom("Run").select(["functionName", "input"]).where("id", "=", p.runId));

const iso = (d: Date) => d.toISOString();

export function toWebhookDelivery(row: DeliveryRow): WebhookDelivery {
  const status = row.status as WebhookDelivery["status"];
  return {
    id: row.id,
    questionId: row.questionId,
    host: new URL(row.url).host,
    status,
    attempts: row.attempts,
    lastError: row.lastError,
    nextAttemptAt: status === "pending" ? iso(row.nextAttemptAt) : null,
    deliveredAt: row.deliveredAt ? iso(row.deliveredAt) : null,
    createdAt: iso(row.createdAt),
  };
}

/** A due delivery, as an attempt needs it. */
export interface DueDelivery {
  id: string;
  url: string;
  payload: string;
  /** Attempts started before this one: the claim's guard. */
  attempts: number;
}

/** The outbox of callbacks, on the database's clock (several nodes compare its times). */
export function createWebhookStore(exec: SqlExecutor) {
  return {
    /** Enqueues a question's delivery (none twice: one per question): whether this call made it. */
    enqueue: async (d: { id: string; questionId: string; url: string; payload: string; windowMs: number }) => (await exec.changes(insertDelivery, d)) === 1,
    due: (limit: number): Promise<DueDelivery[]> => exec.rows(dueDeliveries, { limit }),
    /** Whether this node took the attempt (another node may have). */
    claim: async (d: DueDelivery, holdMs: number) => (await exec.changes(claimAttempt, { id: d.id, attempts: d.attempts, holdMs })) === 1,
    /** `attempts`: the count after the claim. */
    delivered: async (id: string, attempts: number) => void (await exec.changes(markDelivered, { id, attempts })),
    failed: async (id: string, attempts: number, error: string, delayMs: number) => void (await exec.changes(markAttemptFailed, { id, attempts, error, delayMs })),
    of: async (questionId: string) => (await exec.rows(deliveriesOf, { questionId })).map(toWebhookDelivery),
    /** The deliveries of a run's questions (its audit). */
    ofRun: async (runId: string) => (await exec.rows(deliveriesOfRun, { runId })).map(toWebhookDelivery),
    settledWithoutDelivery: (functionName: string, windowMs: number, limit: number) => exec.rows(settledWithoutDelivery, { functionName, sinceMs: -windowMs, limit }),
    runOf: async (runId: string) => (await exec.rows(runOf, { runId }))[0],
  };
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;
