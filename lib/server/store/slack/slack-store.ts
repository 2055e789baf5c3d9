import { sql, type Selectable } from "kysely";
import { dbNow, dbNowPlusMs } from "../db-clock";
import type { SqlExecutor } from "../sql-executor";
import { jsonIds, statement, type DB } from "../typed-sql";
import type { SlackDelivery } from "../../../protocol/slack";

type MessageRow = Selectable<DB["SlackMessage"]>;

const personOfSlackUser = statement((q, p: { slackUserId: string }) => q.selectFrom("SlackLink").select("personId").where("slackUserId", "=", p.slackUserId));
const slackUsersOf = statement((q, p: { people: string }, engine) => q.selectFrom("SlackLink").select(["personId", "slackUserId"]).where("personId", "in", jsonIds(engine, p.people)));

/** Links a person (again: their new Slack user replaces the old). A Slack user linked to someone else is left as it is: no row changes. */
const upsertLink = statement((q, p: { personId: string; slackUserId: string }, engine) =>
  q
    .insertInto("SlackLink")
    .values({ personId: p.personId, slackUserId: p.slackUserId, createdAt: dbNow(engine) })
    .onConflict((oc) => oc.column("personId").doUpdateSet({ slackUserId: p.slackUserId, createdAt: dbNow(engine) }))
    .returning("personId"),
);
const linkedTo = statement((q, p: { slackUserId: string }) => q.selectFrom("SlackLink").select("personId").where("slackUserId", "=", p.slackUserId));
const removeLink = statement((q, p: { personId: string }) => q.deleteFrom("SlackLink").where("personId", "=", p.personId));

const channelOf = statement((q, p: { sessionId: string }) => q.selectFrom("SlackChannel").select("channel").where("sessionId", "=", p.sessionId));
const upsertChannel = statement((q, p: { sessionId: string; channel: string }, engine) =>
  q
    .insertInto("SlackChannel")
    .values({ sessionId: p.sessionId, channel: p.channel, updatedAt: dbNow(engine) })
    .onConflict((oc) => oc.column("sessionId").doUpdateSet({ channel: p.channel, updatedAt: dbNow(engine) })),
);
const removeChannel = statement((q, p: { sessionId: string }) => q.deleteFrom("SlackChannel").where("sessionId", "=", p.sessionId));

/** A question's message to a channel, due at once; none twice (one per question and channel). */
const insertMessage = statement((q, p: { id: string; questionId: string; channel: string }, engine) =>
  q
    .insertInto("SlackMessage")
    .values({ id: p.id, questionId: p.questionId, channel: p.channel, nextAttemptAt: dbNow(engine), createdAt: dbNow(engine) })
    .onConflict((oc) => oc.columns(["questionId", "channel"]).doNothing()),
);

/**
 * The question changed (a vote, its end): each of its messages must show it again. One in step is
 * due at once; one being sent or waiting out a failure keeps its attempt's claim and its wait (its
 * sender sees the new version when it records what it sent). A post given up stays given up.
 */
const touchMessages = statement((q, p: { questionId: string }, engine) =>
  q
    .updateTable("SlackMessage")
    .set((eb) => ({
      version: eb("version", "+", 1),
      status: "pending",
      nextAttemptAt: sql<Date>`CASE WHEN ${sql.ref("status")} = 'done' THEN ${dbNow(engine)} ELSE ${sql.ref("nextAttemptAt")} END`,
    }))
    .where("questionId", "=", p.questionId)
    .where((eb) => eb.or([eb("status", "=", "done"), eb("status", "=", "pending")])),
);

const dueMessages = statement((q, p: { limit: number }, engine) =>
  q.selectFrom("SlackMessage").selectAll().where("status", "=", "pending").where("nextAttemptAt", "<=", dbNow(engine)).orderBy("nextAttemptAt").limit(p.limit),
);

/** Starts an attempt: one conditional update, so of several nodes that saw the row due, one sends. */
const claimAttempt = statement((q, p: { id: string; attempts: number; holdMs: number }, engine) =>
  q
    .updateTable("SlackMessage")
    .set((eb) => ({ attempts: eb("attempts", "+", 1), nextAttemptAt: dbNowPlusMs(engine, p.holdMs) }))
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts)
    .where("status", "=", "pending")
    .where("nextAttemptAt", "<=", dbNow(engine)),
);

/** Slack shows `version` now: in step, unless the question changed again meanwhile (then it is due again at once). */
const markSynced = statement((q, p: { id: string; attempts: number; version: number; ts: string | null; postedIn: string | null }, engine) =>
  q
    .updateTable("SlackMessage")
    .set({
      ts: p.ts,
      postedIn: p.postedIn,
      synced: p.version,
      syncedAt: dbNow(engine),
      status: sql<string>`CASE WHEN ${sql.ref("version")} = ${p.version} THEN 'done' ELSE 'pending' END`,
      attempts: 0,
      nextAttemptAt: dbNow(engine),
      lastError: null,
    })
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts),
);

/** A failed attempt: the next is due after `delayMs`, or, when the failure is final, none. */
const markFailed = statement((q, p: { id: string; attempts: number; error: string; delayMs: number; final: number }, engine) =>
  q
    .updateTable("SlackMessage")
    .set({ lastError: p.error, nextAttemptAt: dbNowPlusMs(engine, p.delayMs), status: sql<string>`CASE WHEN ${p.final} = 1 THEN 'failed' ELSE 'pending' END` })
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts)
    .where("status", "=", "pending"),
);

const messagesOf = statement((q, p: { questionId: string }) => q.selectFrom("SlackMessage").selectAll().where("questionId", "=", p.questionId).orderBy("createdAt").orderBy("id"));
const messagesOfRun = statement((q, p: { runId: string }) =>
  q.selectFrom("SlackMessage as m").innerJoin("Question as q", "q.id", "m.questionId").selectAll("m").where("q.runId", "=", p.runId).orderBy("m.createdAt").orderBy("m.id"),
);

/** Pending questions with no message yet, asked within the window: what a crash between the ask and its enqueue left out. */
const askedWithoutMessage = statement((q, p: { sinceMs: number; limit: number }, engine) =>
  q
    .selectFrom("Question as q")
    .select("q.id")
    .where("q.status", "=", "pending")
    .where("q.createdAt", ">=", dbNowPlusMs(engine, p.sinceMs))
    .where((eb) => eb.not(eb.exists(eb.selectFrom("SlackMessage as m").select("m.id").whereRef("m.questionId", "=", "q.id"))))
    .orderBy("q.createdAt")
    .limit(p.limit),
);

/** Messages in step that show a question still waiting though it settled since: what a crash between a settlement and its touch left out. */
const settledSinceSynced = statement((q) =>
  q
    .selectFrom("SlackMessage as m")
    .innerJoin("Question as q", "q.id", "m.questionId")
    .select("m.questionId")
    .distinct()
    .where("m.status", "=", "done")
    .where("q.status", "<>", "pending")
    .where((eb) => eb.or([eb("m.syncedAt", "is", null), eb("q.closedAt", ">", eb.ref("m.syncedAt"))])),
);

const toDelivery = (row: MessageRow): SlackDelivery => ({
  id: row.id,
  questionId: row.questionId,
  channel: row.channel,
  status: row.status as SlackDelivery["status"],
  attempts: row.attempts,
  lastError: row.lastError,
  syncedAt: row.syncedAt?.toISOString() ?? null,
});

/** A due message, as an attempt needs it. */
export interface DueSlackMessage {
  id: string;
  questionId: string;
  channel: string;
  /** Where Slack posted it and its id there; null until posted. */
  ts: string | null;
  postedIn: string | null;
  version: number;
  /** Attempts started before this one: the claim's guard. */
  attempts: number;
}

/** People's Slack users, chats' channels, and the outbox of questions' messages (on the database's clock: several nodes compare its times). */
export function createSlackStore(exec: SqlExecutor) {
  return {
    personOf: async (slackUserId: string): Promise<string | null> => (await exec.rows(personOfSlackUser, { slackUserId }))[0]?.personId ?? null,
    /** The Slack users of these people (those linked). */
    slackUsersOf: async (people: string[]): Promise<Map<string, string>> =>
      people.length === 0 ? new Map() : new Map((await exec.rows(slackUsersOf, { people: JSON.stringify(people) })).map((r) => [r.personId, r.slackUserId])),
    /** Links a person to a Slack user: false when that user is another person's already. */
    async link(personId: string, slackUserId: string): Promise<boolean> {
      return exec.transaction(async (tx) => {
        const holder = (await tx.rows(linkedTo, { slackUserId }))[0]?.personId;
        if (holder !== undefined && holder !== personId) return false;
        await tx.rows(upsertLink, { personId, slackUserId });
        return true;
      });
    },
    unlink: async (personId: string) => void (await exec.changes(removeLink, { personId })),
    channelOf: async (sessionId: string): Promise<string | null> => (await exec.rows(channelOf, { sessionId }))[0]?.channel ?? null,
    setChannel: async (sessionId: string, channel: string | null) =>
      void (channel === null ? await exec.changes(removeChannel, { sessionId }) : await exec.changes(upsertChannel, { sessionId, channel })),

    /** Enqueues a question's message to each channel (none twice): how many this call made. */
    async enqueue(questionId: string, channels: readonly string[], newId: () => string): Promise<number> {
      let made = 0;
      for (const channel of channels) made += await exec.changes(insertMessage, { id: newId(), questionId, channel });
      return made;
    },
    /** The question changed: its messages are due again. How many. */
    touch: (questionId: string) => exec.changes(touchMessages, { questionId }),
    due: async (limit: number): Promise<DueSlackMessage[]> =>
      (await exec.rows(dueMessages, { limit })).map((r) => ({ id: r.id, questionId: r.questionId, channel: r.channel, ts: r.ts, postedIn: r.postedIn, version: r.version, attempts: r.attempts })),
    /** Whether this node took the attempt (another node may have). */
    claim: async (m: DueSlackMessage, holdMs: number) => (await exec.changes(claimAttempt, { id: m.id, attempts: m.attempts, holdMs })) === 1,
    /** `attempts`: the count after the claim; `posted`: where the message is (null: never posted, its question settled first). */
    synced: async (m: DueSlackMessage, attempts: number, posted: { ts: string; channel: string } | null) =>
      void (await exec.changes(markSynced, { id: m.id, attempts, version: m.version, ts: posted?.ts ?? null, postedIn: posted?.channel ?? null })),
    failed: async (id: string, attempts: number, error: string, delayMs: number, final: boolean) => void (await exec.changes(markFailed, { id, attempts, error, delayMs, final: final ? 1 : 0 })),
    of: async (questionId: string): Promise<SlackDelivery[]> => (await exec.rows(messagesOf, { questionId })).map(toDelivery),
    /** The messages of a run's questions (its audit). */
    ofRun: async (runId: string): Promise<SlackDelivery[]> => (await exec.rows(messagesOfRun, { runId })).map(toDelivery),
    askedWithoutMessage: async (windowMs: number, limit: number) => (await exec.rows(askedWithoutMessage, { sinceMs: -windowMs, limit })).map((r) => r.id),
    settledSinceSynced: async () => (await exec.rows(settledSinceSynced, {})).map((r) => r.questionId),
  };
}

export type SlackStore = ReturnType<typeof createSlackStore>;
