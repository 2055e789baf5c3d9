import { sql, type Selectable } from "kysely";
import type { PushDevice } from "../../../protocol/push";
import { dbNow, dbNowPlusMs } from "../db-clock";
import type { SqlExecutor } from "../sql-executor";
import { statement, type DB, type SqlEngine } from "../typed-sql";

type SubscriptionRow = Selectable<DB["PushSubscription"]>;
export type PushKind = "question" | "closed";

/** A parameter in a SELECT list: PostgreSQL must be told its type. */
const text = (value: string) => sql<string>`CAST(${value} AS TEXT)`;

/**
 * A device subscribing, or subscribing again: the same endpoint keeps its id and takes the new keys
 * and name. Only its owner's: an endpoint of another person's returns no row (nothing changes).
 */
const upsertSubscription = statement((q, p: { id: string; ownerId: string; endpoint: string; p256dh: string; auth: string; device: string }, engine) =>
  q
    .insertInto("PushSubscription")
    .values({ id: p.id, ownerId: p.ownerId, endpoint: p.endpoint, p256dh: p.p256dh, auth: p.auth, device: p.device, createdAt: dbNow(engine) })
    .onConflict((oc) =>
      oc
        .column("endpoint")
        .doUpdateSet((eb) => ({
          ownerId: eb.ref("excluded.ownerId"),
          p256dh: eb.ref("excluded.p256dh"),
          auth: eb.ref("excluded.auth"),
          device: eb.ref("excluded.device"),
          presentSessionId: null,
          presentUntil: null,
        }))
        .where("PushSubscription.ownerId", "=", p.ownerId),
    )
    .returning("id"),
);

const subscriptionsOf = statement((q, p: { ownerId: string }) => q.selectFrom("PushSubscription").selectAll().where("ownerId", "=", p.ownerId).orderBy("createdAt", "desc").orderBy("id", "desc"));

const removeSubscription = statement((q, p: { id: string; ownerId: string }) => q.deleteFrom("PushSubscription").where("id", "=", p.id).where("ownerId", "=", p.ownerId));

/** A push service said the subscription is gone (404, 410): it goes, with its deliveries. */
const dropSubscription = statement((q, p: { id: string }) => q.deleteFrom("PushSubscription").where("id", "=", p.id));

const setPresence = statement((q, p: { id: string; ownerId: string; sessionId: string; ttlMs: number }, engine) =>
  q
    .updateTable("PushSubscription")
    .set({ presentSessionId: p.sessionId, presentUntil: dbNowPlusMs(engine, p.ttlMs) })
    .where("id", "=", p.id)
    .where("ownerId", "=", p.ownerId),
);

const ownedSubscription = statement((q, p: { id: string; ownerId: string }) => q.selectFrom("PushSubscription").select("id").where("id", "=", p.id).where("ownerId", "=", p.ownerId));

/** A tab that went away forgets the presence it set (not one another tab of the browser set since). */
const clearPresence = statement((q, p: { id: string; sessionId: string }) =>
  q.updateTable("PushSubscription").set({ presentSessionId: null, presentUntil: null }).where("id", "=", p.id).where("presentSessionId", "=", p.sessionId),
);

const mute = statement((q, p: { ownerId: string; sessionId: string }, engine) =>
  q
    .insertInto("PushMute")
    .values({ ownerId: p.ownerId, sessionId: p.sessionId, createdAt: dbNow(engine) })
    .onConflict((oc) => oc.columns(["ownerId", "sessionId"]).doNothing()),
);
const unmute = statement((q, p: { ownerId: string; sessionId: string }) => q.deleteFrom("PushMute").where("ownerId", "=", p.ownerId).where("sessionId", "=", p.sessionId));
const mutedSessions = statement((q, p: { ownerId: string }) => q.selectFrom("PushMute").select("sessionId").where("ownerId", "=", p.ownerId).orderBy("createdAt").orderBy("sessionId"));

const sessionOf = statement((q, p: { id: string }) => q.selectFrom("ChatSession").select(["ownerId", "title"]).where("id", "=", p.id).where("deletedAt", "is", null));

const deliveryId = (engine: SqlEngine, questionId: string, subscriptionId: ReturnType<typeof sql.ref<string>>, kind: PushKind) =>
  engine === "postgresql" ? sql<string>`${text(questionId)} || ':' || ${subscriptionId} || ':${sql.raw(kind)}'` : sql<string>`${questionId} || ':' || ${subscriptionId} || ':${sql.raw(kind)}'`;

/** The columns of a new delivery, due at once, given up a window after now, to the subscription `subscriptionId` names. */
const newDelivery = (engine: SqlEngine, p: { questionId: string; payload: string; windowMs: number }, subscriptionId: ReturnType<typeof sql.ref<string>>, kind: PushKind) => [
  deliveryId(engine, p.questionId, subscriptionId, kind).as("id"),
  subscriptionId.as("subscriptionId"),
  text(p.questionId).as("questionId"),
  sql<string>`${sql.lit(kind)}`.as("kind"),
  text(p.payload).as("payload"),
  sql<string>`'pending'`.as("status"),
  sql<number>`0`.as("attempts"),
  dbNow(engine).as("nextAttemptAt"),
  dbNowPlusMs(engine, p.windowMs).as("giveUpAt"),
  dbNow(engine).as("createdAt"),
];

/**
 * A question's push to each device of the session's owner, except where the session is muted or a
 * tab of that browser shows the session (visible and focused, not yet lapsed). One per device:
 * a second call adds none.
 */
const enqueueQuestion = statement((q, p: { questionId: string; sessionId: string; ownerId: string; payload: string; windowMs: number }, engine) =>
  q
    .insertInto("PushDelivery")
    .columns(["id", "subscriptionId", "questionId", "kind", "payload", "status", "attempts", "nextAttemptAt", "giveUpAt", "createdAt"])
    .expression((eb) =>
      eb
        .selectFrom("PushSubscription as s")
        .select(newDelivery(engine, p, sql.ref<string>("s.id"), "question"))
        .where("s.ownerId", "=", p.ownerId)
        // Another node may have settled and retracted it already: a question pushed after that would never close.
        .where((w) => w.exists(w.selectFrom("Question as q").select("q.id").where("q.id", "=", p.questionId).where("q.status", "=", "pending")))
        .where((w) => w.not(w.exists(w.selectFrom("PushMute as m").select("m.sessionId").whereRef("m.ownerId", "=", "s.ownerId").where("m.sessionId", "=", p.sessionId))))
        .where((w) => w.or([w("s.presentSessionId", "is", null), w("s.presentSessionId", "<>", p.sessionId), w("s.presentUntil", "is", null), w("s.presentUntil", "<=", dbNow(engine))])),
    )
    .onConflict((oc) => oc.columns(["subscriptionId", "questionId", "kind"]).doNothing()),
);

/**
 * A settled question's retraction, to every device its push reached or may have reached: sent,
 * or tried at least once (an attempt cut short may have arrived). One per device.
 */
const enqueueClosed = statement((q, p: { questionId: string; payload: string; windowMs: number }, engine) =>
  q
    .insertInto("PushDelivery")
    .columns(["id", "subscriptionId", "questionId", "kind", "payload", "status", "attempts", "nextAttemptAt", "giveUpAt", "createdAt"])
    .expression((eb) =>
      eb
        .selectFrom("PushDelivery as d")
        .select(newDelivery(engine, p, sql.ref<string>("d.subscriptionId"), "closed"))
        .where("d.questionId", "=", p.questionId)
        .where("d.kind", "=", "question")
        .where((w) => w.or([w("d.status", "=", "delivered"), w.and([w("d.status", "=", "pending"), w("d.attempts", ">", 0)])])),
    )
    .onConflict((oc) => oc.columns(["subscriptionId", "questionId", "kind"]).doNothing()),
);

const questionPending = statement((q, p: { id: string }) => q.selectFrom("Question").select("id").where("id", "=", p.id).where("status", "=", "pending"));

/** A settled question's pushes not yet taken are never sent. */
const cancelQuestion = statement((q, p: { questionId: string }) =>
  q.updateTable("PushDelivery").set({ status: "cancelled" }).where("questionId", "=", p.questionId).where("kind", "=", "question").where("status", "=", "pending"),
);

const dueDeliveries = statement((q, p: { limit: number }, engine) =>
  q
    .selectFrom("PushDelivery as d")
    .innerJoin("PushSubscription as s", "s.id", "d.subscriptionId")
    .select(["d.id", "d.kind", "d.questionId", "d.payload", "d.attempts", "s.id as subscriptionId", "s.endpoint", "s.p256dh", "s.auth"])
    .where("d.status", "=", "pending")
    .where("d.nextAttemptAt", "<=", dbNow(engine))
    .orderBy("d.nextAttemptAt")
    .limit(p.limit),
);

/** Starts an attempt: one conditional update, so of several nodes that saw the row due, one sends (as the webhook outbox does). */
const claimAttempt = statement((q, p: { id: string; attempts: number; holdMs: number }, engine) =>
  q
    .updateTable("PushDelivery")
    .set((eb) => ({ attempts: eb("attempts", "+", 1), nextAttemptAt: dbNowPlusMs(engine, p.holdMs) }))
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts)
    .where("status", "=", "pending")
    .where("nextAttemptAt", "<=", dbNow(engine)),
);

const markDelivered = statement((q, p: { id: string; attempts: number }) =>
  q.updateTable("PushDelivery").set({ status: "delivered", lastError: null }).where("id", "=", p.id).where("attempts", "=", p.attempts).where("status", "=", "pending"),
);

const markPushed = statement((q, p: { id: string }, engine) =>
  q
    .updateTable("PushSubscription")
    .set({ lastPushAt: dbNow(engine) })
    .where("id", "=", p.id),
);

/** A failed attempt: the next is due after `delayMs`, unless that is past the window or the failure is final (then it has failed for good). */
const markAttemptFailed = statement((q, p: { id: string; attempts: number; error: string; delayMs: number; final: number }, engine) =>
  q
    .updateTable("PushDelivery")
    .set({
      lastError: p.error,
      nextAttemptAt: dbNowPlusMs(engine, p.delayMs),
      status: sql<string>`CASE WHEN ${p.final} = 1 OR ${dbNowPlusMs(engine, p.delayMs)} > ${sql.ref("giveUpAt")} THEN 'failed' ELSE 'pending' END`,
    })
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts)
    .where("status", "=", "pending"),
);

/** Pending questions asked within the window that no push was enqueued for (a crash between the ask and its enqueue). */
const askedWithoutPush = statement((q, p: { sinceMs: number; limit: number }, engine) =>
  q
    .selectFrom("Question as q")
    .innerJoin("ChatSession as c", "c.id", "q.sessionId")
    .select("q.id")
    .where("q.status", "=", "pending")
    .where("q.createdAt", ">=", dbNowPlusMs(engine, p.sinceMs))
    .where((eb) => eb.exists(eb.selectFrom("PushSubscription as s").select("s.id").whereRef("s.ownerId", "=", "c.ownerId")))
    .where((eb) => eb.not(eb.exists(eb.selectFrom("PushDelivery as d").select("d.id").whereRef("d.questionId", "=", "q.id"))))
    .orderBy("q.createdAt")
    .limit(p.limit),
);

/** Settled questions whose pushes were neither retracted nor cancelled (a crash between the settlement and its enqueue). */
const settledWithoutRetraction = statement((q, p: { limit: number }) =>
  q
    .selectFrom("PushDelivery as d")
    .innerJoin("Question as q", "q.id", "d.questionId")
    .select("d.questionId")
    .distinct()
    .where("d.kind", "=", "question")
    .where("q.status", "<>", "pending")
    .where((eb) =>
      eb.or([
        eb("d.status", "=", "pending"),
        eb.and([
          eb("d.status", "=", "delivered"),
          eb.not(
            eb.exists(
              eb.selectFrom("PushDelivery as c").select("c.id").whereRef("c.subscriptionId", "=", "d.subscriptionId").whereRef("c.questionId", "=", "d.questionId").where("c.kind", "=", "closed"),
            ),
          ),
        ]),
      ]),
    )
    .limit(p.limit),
);

const deliveriesOf = statement((q, p: { questionId: string }) =>
  q.selectFrom("PushDelivery").select(["id", "subscriptionId", "kind", "status", "attempts", "lastError", "payload"]).where("questionId", "=", p.questionId).orderBy("createdAt").orderBy("id"),
);

/** A due delivery, as an attempt needs it. */
export interface DuePush {
  id: string;
  kind: string;
  questionId: string;
  payload: string;
  /** Attempts started before this one: the claim's guard. */
  attempts: number;
  subscriptionId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

export function toPushDevice(row: SubscriptionRow): PushDevice {
  return { id: row.id, device: row.device, service: new URL(row.endpoint).host, createdAt: row.createdAt.toISOString(), lastPushAt: row.lastPushAt?.toISOString() ?? null };
}

/** Push subscriptions, mutes and the push outbox, on the database's clock (several nodes compare its times). */
export function createPushStore(exec: SqlExecutor) {
  return {
    /** Subscribes a device (again): its id, the same for the same endpoint; null when the endpoint is another person's (nothing changes). */
    async subscribe(s: { id: string; ownerId: string; endpoint: string; p256dh: string; auth: string; device: string }): Promise<string | null> {
      const [row] = await exec.write(upsertSubscription, s);
      return row?.id ?? null;
    },
    devices: async (ownerId: string) => (await exec.rows(subscriptionsOf, { ownerId })).map(toPushDevice),
    /** Whether the owner had it. */
    remove: async (id: string, ownerId: string) => (await exec.changes(removeSubscription, { id, ownerId })) === 1,
    drop: async (id: string) => void (await exec.changes(dropSubscription, { id })),
    /**
     * Whether the subscription is the owner's (nothing changes otherwise). A tab that shows no
     * session changes nothing: what it showed before goes through `absent`, so it never clears
     * the presence another tab of the browser set since.
     */
    present: async ({ sessionId, ...p }: { id: string; ownerId: string; sessionId: string | null; ttlMs: number }) =>
      sessionId === null ? (await exec.rows(ownedSubscription, p)).length === 1 : (await exec.changes(setPresence, { ...p, sessionId })) === 1,
    absent: async (id: string, sessionId: string) => void (await exec.changes(clearPresence, { id, sessionId })),
    setMuted: async (ownerId: string, sessionId: string, muted: boolean) => void (await exec.changes(muted ? mute : unmute, { ownerId, sessionId })),
    mutedSessions: async (ownerId: string) => (await exec.rows(mutedSessions, { ownerId })).map((r) => r.sessionId),
    questionPending: async (id: string) => (await exec.rows(questionPending, { id })).length === 1,
    sessionOf: async (id: string) => (await exec.rows(sessionOf, { id }))[0],
    /** How many pushes this made. */
    enqueueQuestion: (p: { questionId: string; sessionId: string; ownerId: string; payload: string; windowMs: number }) => exec.changes(enqueueQuestion, p),
    /** Retracts a settled question: a retraction to each device it reached, and what was not sent is never sent. How many retractions this made. */
    async enqueueClosed(p: { questionId: string; payload: string; windowMs: number }): Promise<number> {
      const made = await exec.changes(enqueueClosed, p);
      await exec.changes(cancelQuestion, { questionId: p.questionId });
      return made;
    },
    due: (limit: number): Promise<DuePush[]> => exec.rows(dueDeliveries, { limit }),
    claim: async (d: DuePush, holdMs: number) => (await exec.changes(claimAttempt, { id: d.id, attempts: d.attempts, holdMs })) === 1,
    /** `attempts`: the count after the claim. */
    async delivered(d: DuePush, attempts: number): Promise<void> {
      await exec.changes(markDelivered, { id: d.id, attempts });
      await exec.changes(markPushed, { id: d.subscriptionId });
    },
    failed: async (id: string, attempts: number, error: string, delayMs: number, final = false) => void (await exec.changes(markAttemptFailed, { id, attempts, error, delayMs, final: final ? 1 : 0 })),
    askedWithoutPush: async (windowMs: number, limit: number) => (await exec.rows(askedWithoutPush, { sinceMs: -windowMs, limit })).map((r) => r.id),
    settledWithoutRetraction: async (limit: number) => (await exec.rows(settledWithoutRetraction, { limit })).map((r) => r.questionId),
    /** A question's deliveries (tests, and what an audit could show). */
    of: (questionId: string) => exec.rows(deliveriesOf, { questionId }),
  };
}

export type PushStore = ReturnType<typeof createPushStore>;
