import { sql } from "kysely";
import { dbNow, dbNowPlusMs } from "../db-clock";
import type { SqlExecutor } from "../sql-executor";
import { jsonIds, statement } from "../typed-sql";

const emailOf = statement((q, p: { personId: string }) => q.selectFrom("PersonEmail").selectAll().where("personId", "=", p.personId));
const emailsOf = statement((q, p: { people: string }, engine) =>
  q.selectFrom("PersonEmail").select(["personId", "email"]).where("personId", "in", jsonIds(engine, p.people)).where("questions", "=", true),
);
const addressesOf = statement((q, p: { people: string }, engine) => q.selectFrom("PersonEmail").select(["personId", "email"]).where("personId", "in", jsonIds(engine, p.people)));
const holderOf = statement((q, p: { email: string }) => q.selectFrom("PersonEmail").select("personId").where("email", "=", p.email));
const upsertEmail = statement((q, p: { personId: string; email: string; questions: boolean }, engine) =>
  q
    .insertInto("PersonEmail")
    .values({ personId: p.personId, email: p.email, questions: p.questions, updatedAt: dbNow(engine) })
    .onConflict((oc) => oc.column("personId").doUpdateSet({ email: p.email, questions: p.questions, updatedAt: dbNow(engine) })),
);
const removeEmail = statement((q, p: { personId: string }) => q.deleteFrom("PersonEmail").where("personId", "=", p.personId));

const insertMessage = statement((q, p: { id: string; questionId: string; personId: string; address: string }, engine) =>
  q
    .insertInto("EmailMessage")
    .values({ id: p.id, questionId: p.questionId, personId: p.personId, address: p.address, nextAttemptAt: dbNow(engine), createdAt: dbNow(engine) })
    .onConflict((oc) => oc.columns(["questionId", "personId"]).doNothing()),
);
const dueMessages = statement((q, p: { limit: number }, engine) =>
  q
    .selectFrom("EmailMessage")
    .select(["id", "questionId", "personId", "address", "attempts"])
    .where("status", "=", "pending")
    .where("nextAttemptAt", "<=", dbNow(engine))
    .orderBy("nextAttemptAt")
    .limit(p.limit),
);
const claimAttempt = statement((q, p: { id: string; attempts: number; holdMs: number }, engine) =>
  q
    .updateTable("EmailMessage")
    .set((eb) => ({ attempts: eb("attempts", "+", 1), nextAttemptAt: dbNowPlusMs(engine, p.holdMs) }))
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts)
    .where("status", "=", "pending")
    .where("nextAttemptAt", "<=", dbNow(engine)),
);
/** The mail went: so its row says, though its question settled while it was on its way (which cancelled it unsent). */
const markSent = statement((q, p: { id: string; attempts: number }, engine) =>
  q
    .updateTable("EmailMessage")
    .set({ status: "sent", sentAt: dbNow(engine), lastError: null })
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts)
    .where("status", "in", ["pending", "cancelled"]),
);
const markFailed = statement((q, p: { id: string; attempts: number; error: string; delayMs: number; final: number }, engine) =>
  q
    .updateTable("EmailMessage")
    .set({ lastError: p.error, nextAttemptAt: dbNowPlusMs(engine, p.delayMs), status: sql<string>`CASE WHEN ${p.final} = 1 THEN 'failed' ELSE 'pending' END` })
    .where("id", "=", p.id)
    .where("attempts", "=", p.attempts)
    .where("status", "=", "pending"),
);
/** A question settled before its mail went: it is not sent. */
const cancelUnsent = statement((q, p: { questionId: string }) => q.updateTable("EmailMessage").set({ status: "cancelled" }).where("questionId", "=", p.questionId).where("status", "=", "pending"));
const messageById = statement((q, p: { id: string }) => q.selectFrom("EmailMessage").select(["id", "questionId", "personId", "status"]).where("id", "=", p.id));
const messagesOfRun = statement((q, p: { runId: string }) =>
  q
    .selectFrom("EmailMessage as m")
    .innerJoin("Question as q", "q.id", "m.questionId")
    .select(["m.id", "m.questionId", "m.personId", "m.status", "m.attempts", "m.lastError", "m.sentAt"])
    .where("q.runId", "=", p.runId)
    .orderBy("m.createdAt")
    .orderBy("m.id"),
);
/** Pending questions with no mail yet, asked within the window: what a crash between the ask and its enqueue left out. */
const askedWithoutMessage = statement((q, p: { sinceMs: number; limit: number }, engine) =>
  q
    .selectFrom("Question as q")
    .select("q.id")
    .where("q.status", "=", "pending")
    .where("q.createdAt", ">=", dbNowPlusMs(engine, p.sinceMs))
    .where((eb) => eb.not(eb.exists(eb.selectFrom("EmailMessage as m").select("m.id").whereRef("m.questionId", "=", "q.id"))))
    .orderBy("q.createdAt")
    .limit(p.limit),
);

/** A due mail, as an attempt needs it. */
export interface DueEmail {
  id: string;
  questionId: string;
  personId: string;
  address: string;
  attempts: number;
}

/** People's addresses, and the outbox of questions' mails (on the database's clock). */
export function createEmailStore(exec: SqlExecutor) {
  return {
    emailOf: async (personId: string) => (await exec.rows(emailOf, { personId }))[0] ?? null,
    /** The addresses of these people who get questions by mail. */
    emailsOf: async (people: string[]): Promise<Map<string, string>> =>
      people.length === 0 ? new Map() : new Map((await exec.rows(emailsOf, { people: JSON.stringify(people) })).map((r) => [r.personId, r.email])),
    /** The addresses of these people, whether or not they want questions by mail. */
    addressesOf: async (people: string[]): Promise<Map<string, string>> =>
      people.length === 0 ? new Map() : new Map((await exec.rows(addressesOf, { people: JSON.stringify(people) })).map((r) => [r.personId, r.email])),
    /** The person whose address this is (addresses are compared as stored: lower-cased). */
    personWithEmail: async (email: string): Promise<string | null> => (await exec.rows(holderOf, { email: email.toLowerCase() }))[0]?.personId ?? null,
    /** Sets a person's address and whether questions are mailed: false when the address is another person's. */
    async setEmail(personId: string, address: string, questions: boolean): Promise<boolean> {
      const email = address.toLowerCase();
      return exec.transaction(async (tx) => {
        const holder = (await tx.rows(holderOf, { email }))[0]?.personId;
        if (holder !== undefined && holder !== personId) return false;
        await tx.changes(upsertEmail, { personId, email, questions });
        return true;
      });
    },
    removeEmail: async (personId: string) => void (await exec.changes(removeEmail, { personId })),
    async enqueue(questionId: string, recipients: Map<string, string>, newId: () => string): Promise<number> {
      let made = 0;
      for (const [personId, address] of recipients) made += await exec.changes(insertMessage, { id: newId(), questionId, personId, address });
      return made;
    },
    due: (limit: number): Promise<DueEmail[]> => exec.rows(dueMessages, { limit }),
    claim: async (m: DueEmail, holdMs: number) => (await exec.changes(claimAttempt, { id: m.id, attempts: m.attempts, holdMs })) === 1,
    sent: async (id: string, attempts: number) => void (await exec.changes(markSent, { id, attempts })),
    failed: async (id: string, attempts: number, error: string, delayMs: number, final: boolean) => void (await exec.changes(markFailed, { id, attempts, error, delayMs, final: final ? 1 : 0 })),
    cancelUnsent: (questionId: string) => exec.changes(cancelUnsent, { questionId }),
    /** The mail an answer link names. */
    message: async (id: string) => (await exec.rows(messageById, { id }))[0] ?? null,
    ofRun: async (runId: string) =>
      (await exec.rows(messagesOfRun, { runId })).map((r) => ({ ...r, status: r.status as "pending" | "sent" | "failed" | "cancelled", sentAt: r.sentAt?.toISOString() ?? null })),
    askedWithoutMessage: async (windowMs: number, limit: number) => (await exec.rows(askedWithoutMessage, { sinceMs: -windowMs, limit })).map((r) => r.id),
  };
}

export type EmailStore = ReturnType<typeof createEmailStore>;
