import { RunPolicySchema, type RunPolicy } from "../../protocol/policy";
import type { JsonValue, Question, QuestionOutcome, QuestionSpec } from "../../protocol/question";
import type { Db, Tx } from "../db/client";
import { QUESTION_WITH_ROOT, toQuestion } from "../db/mappers";

/** How a question left `pending`. */
export interface Closing {
  status: QuestionOutcome;
  closedBy: string;
  closedAt: Date;
  answer: JsonValue | null;
  feedback: string | null;
}

export interface NewQuestion {
  id: string;
  runId: string;
  sessionId: string;
  owner: string;
  seq: number;
  /** The run's journal entry for it: the digest replay must match. */
  journalDigest: string;
  pendingId: string;
  targetDigest: string;
  spec: QuestionSpec;
  createdAt: Date;
  expiresAt: Date | null;
  /** Already settled when it is stored (an approval a permission rule decided): no person is asked. */
  closing?: Closing;
}

/** Every question query, as small named functions: the question domain does not speak Prisma. */
export function createQuestionStore(db: Db) {
  const closingData = ({ status, closedBy, closedAt, answer, feedback }: Closing) => ({
    status,
    closedBy,
    closedAt,
    answer: answer === null ? null : JSON.stringify(answer),
    feedback,
  });

  return {
    find: async (id: string): Promise<Question | null> => {
      const row = await db.question.findUnique({ where: { id }, include: QUESTION_WITH_ROOT });
      return row ? toQuestion(row) : null;
    },

    findByPendingId: async (pendingId: string): Promise<Question | null> => {
      const row = await db.question.findUnique({ where: { pendingId }, include: QUESTION_WITH_ROOT });
      return row ? toQuestion(row) : null;
    },

    /** The policy fixed when a run started. */
    policyOf: async (runId: string): Promise<RunPolicy> => {
      const run = await db.run.findUnique({ where: { id: runId }, select: { policy: true } });
      return RunPolicySchema.parse(JSON.parse(run?.policy ?? "{}"));
    },

    /** Claim-once: true for the one caller whose conditional update moved the question out of pending. */
    claim: async (id: string, closing: Closing, tx: Tx | Db = db): Promise<boolean> =>
      (await tx.question.updateMany({ where: { id, status: "pending" }, data: closingData(closing) })).count === 1,

    /** Claims a question and reads it back in one transaction; `alongWith` records what belongs with the claim. */
    claimWith: <T>(id: string, closing: Closing, alongWith: (tx: Tx, question: Question) => Promise<T>): Promise<T | null> =>
      db.$transaction(async (tx: Tx) => {
        const { count } = await tx.question.updateMany({ where: { id, status: "pending" }, data: closingData(closing) });
        if (count !== 1) return null;
        const row = await tx.question.findUniqueOrThrow({ where: { id }, include: QUESTION_WITH_ROOT });
        return alongWith(tx, toQuestion(row));
      }),

    /** What counts against a run's question limit: every question and approval a person was asked (not those a rule settled at once). */
    countAsked: (runId: string): Promise<number> =>
      db.question.count({ where: { runId, OR: [{ kind: { not: "approval" } }, { closedBy: null }, { closedBy: { not: "rule" } }] } }),

    /** A session's pending approvals, read inside a transaction. */
    pendingApprovalsIn: async (tx: Tx, sessionId: string): Promise<Question[]> =>
      (await tx.question.findMany({ where: { sessionId, status: "pending", kind: "approval" }, include: QUESTION_WITH_ROOT })).map(toQuestion),

    /** A question and its journal entry, in one transaction. */
    insert: async (q: NewQuestion): Promise<Question> => {
      const { spec } = q;
      const row = await db.$transaction(async (tx: Tx) => {
        const created = await tx.question.create({
          data: {
            id: q.id,
            runId: q.runId,
            sessionId: q.sessionId,
            owner: q.owner,
            seq: q.seq,
            pendingId: q.pendingId,
            targetDigest: q.targetDigest,
            replySchema: spec.replySchema ? JSON.stringify(spec.replySchema) : null,
            kind: spec.kind,
            prompt: spec.prompt,
            options: JSON.stringify(spec.options),
            multi: spec.multi,
            allowCustom: spec.allowCustom,
            detail: spec.detail,
            defaultValue: spec.default === undefined ? null : JSON.stringify(spec.default),
            approval: spec.approval ? JSON.stringify(spec.approval) : null,
            ...(q.closing ? closingData(q.closing) : { status: "pending" }),
            createdAt: q.createdAt,
            expiresAt: q.expiresAt,
          },
          include: QUESTION_WITH_ROOT,
        });
        await tx.journalEntry.create({ data: { runId: q.runId, seq: q.seq, kind: "question", name: spec.prompt.slice(0, 200), digest: q.journalDigest, questionId: q.id } });
        return created;
      });
      return toQuestion(row);
    },

    /** The first pending question of a session, read inside someone's transaction. */
    firstPendingIn: (tx: Tx, sessionId: string): Promise<Pick<Question, "id" | "runId" | "prompt"> | null> =>
      tx.question.findFirst({ where: { sessionId, status: "pending" }, orderBy: { createdAt: "asc" }, select: { id: true, runId: true, prompt: true } }),

    pendingIdsOf: async (runId: string): Promise<string[]> =>
      (await db.question.findMany({ where: { runId, status: "pending" }, select: { id: true } })).map((q) => q.id),

    /** Every question a run asked, in journal order (its audit trail). */
    listOfRun: async (runId: string): Promise<Question[]> =>
      (await db.question.findMany({ where: { runId }, orderBy: { seq: "asc" }, include: QUESTION_WITH_ROOT })).map(toQuestion),

    listPending: async ({ sessionId, runIds }: { sessionId?: string; runIds?: string[] } = {}): Promise<Question[]> => {
      const rows = await db.question.findMany({
        where: { status: "pending", ...(sessionId ? { sessionId } : {}), ...(runIds ? { runId: { in: runIds } } : {}) },
        orderBy: { createdAt: "asc" },
        include: QUESTION_WITH_ROOT,
      });
      return rows.map(toQuestion);
    },

    /** Pending questions that expire, for the expiry timers. */
    listExpiring: async (): Promise<Array<{ id: string; expiresAt: Date }>> =>
      (await db.question.findMany({ where: { status: "pending", expiresAt: { not: null } }, select: { id: true, expiresAt: true } })).map((r) => ({
        id: r.id,
        expiresAt: r.expiresAt!,
      })),
  };
}

export type QuestionStore = ReturnType<typeof createQuestionStore>;
