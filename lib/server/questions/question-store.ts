import { RunPolicySchema, type RunPolicy } from "../../protocol/policy";
import type { JsonValue, Question, QuestionOutcome, QuestionSpec } from "../../protocol/question";
import { directPg, type Db, type DirectSqlite, type PgLane, type Tx } from "../db/client";
import { pgPlaceholders, pgTime } from "../db/pg-lane";
import type { CommandRow } from "../commands/command-service";
import { fromSqliteBoolean, fromSqliteTime, sqliteTime } from "../db/direct-rows";
import { QUESTION_WITH_ROOT, toQuestion } from "../db/mappers";
import { OLDEST_FIRST } from "../ids";
import { fenced, HELD_SQL, holdEpoch, noRunOrLeaseLost, pgHeld, RunLeaseLost, type HeldEpoch } from "../cluster/lease-fence";
import { rawSql } from "../db/raw-sql";

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

const closingData = ({ status, closedBy, closedAt, answer, feedback }: Closing) => ({
  status,
  closedBy,
  closedAt,
  answer: answer === null ? null : JSON.stringify(answer),
  feedback,
});

const journalName = (spec: QuestionSpec) => spec.prompt.slice(0, 200);

/** The stored row of a new question. */
function questionRow(q: NewQuestion) {
  const { spec } = q;
  return {
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
    ...(q.closing ? closingData(q.closing) : { status: "pending", closedBy: null, closedAt: null, answer: null, feedback: null }),
    createdAt: q.createdAt,
    expiresAt: q.expiresAt,
  };
}

/** What a reply needs to know of its target before it claims it, read at once. */
export interface ReplyTarget {
  question: Question;
  policy: RunPolicy;
  /** The session's owner, and whether its delete has begun: who may see the question. */
  ownerId: string;
  deleted: boolean;
}

const parsePolicy = (text: string | null | undefined): RunPolicy => RunPolicySchema.parse(JSON.parse(text ?? "{}"));

const TARGET_SQL = `SELECT q.*, r."rootRunId" AS "run_rootRunId", r."policy" AS "run_policy", s."ownerId" AS "session_ownerId", s."deletedAt" AS "session_deletedAt"
  FROM "Question" q JOIN "Run" r ON r."id" = q."runId" JOIN "ChatSession" s ON s."id" = q."sessionId" WHERE q."id" = ?`;
/** What counts against a run's question limit (both engines' lanes; an integer on both). */
const COUNT_ASKED_SQL = `SELECT CAST(COUNT(*) AS INTEGER) AS "n" FROM "Question" WHERE "runId" = ? AND ("kind" <> 'approval' OR "closedBy" IS NULL OR "closedBy" <> 'rule')`;
const CLAIM_SQL = `UPDATE "Question" SET "status" = ?, "closedBy" = ?, "closedAt" = ?, "answer" = ?, "feedback" = ? WHERE "id" = ? AND "status" = 'pending'`;

/**
 * The reply's reads and writes on SQLite's direct lane, called inside `direct.transaction`: one
 * joined read and one conditional update, where Prisma would send six statements.
 */
export function createDirectQuestionStore(direct: DirectSqlite) {
  return {
    target(id: string): ReplyTarget | null {
      const row = direct.prepare(TARGET_SQL).get<Record<string, unknown>>(id);
      if (!row) return null;
      const question = toQuestion({
        ...(row as unknown as Parameters<typeof toQuestion>[0]),
        multi: fromSqliteBoolean(row.multi),
        allowCustom: fromSqliteBoolean(row.allowCustom),
        createdAt: fromSqliteTime(row.createdAt)!,
        expiresAt: fromSqliteTime(row.expiresAt),
        closedAt: fromSqliteTime(row.closedAt),
        run: { rootRunId: row.run_rootRunId as string | null },
      });
      return { question, policy: parsePolicy(row.run_policy as string), ownerId: row.session_ownerId as string, deleted: row.session_deletedAt !== null };
    },

    countAsked: (runId: string): Promise<number> =>
      direct.read(
        () =>
          direct
            .prepare(COUNT_ASKED_SQL)
            .get<{ n: number }>(runId)!.n,
      ),

    /** A question and its journal entry in one transaction (fenced by `epoch`); the question as stored, without reading it back. */
    insert: async (q: NewQuestion & { rootRunId: string }, alongWithNow?: () => void, epoch?: HeldEpoch): Promise<Question> => {
      const row = questionRow(q);
      await direct.transaction(() => {
        if (fenced(epoch) && !direct.prepare(HELD_SQL).get(q.runId, epoch)) throw new RunLeaseLost(q.runId);
        direct
          .prepare(
            `INSERT INTO "Question" ("id", "sessionId", "runId", "owner", "seq", "pendingId", "targetDigest", "replySchema", "kind", "prompt", "options", "multi", "allowCustom", "detail", "defaultValue", "approval", "status", "answer", "feedback", "closedBy", "closedAt", "createdAt", "expiresAt")
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            row.id, row.sessionId, row.runId, row.owner, row.seq, row.pendingId, row.targetDigest, row.replySchema, row.kind, row.prompt, row.options,
            row.multi ? 1 : 0, row.allowCustom ? 1 : 0, row.detail, row.defaultValue, row.approval, row.status, row.answer, row.feedback, row.closedBy,
            row.closedAt && sqliteTime(row.closedAt), sqliteTime(row.createdAt), row.expiresAt && sqliteTime(row.expiresAt),
          );
        direct
          .prepare(`INSERT INTO "JournalEntry" ("runId", "seq", "kind", "name", "digest", "questionId", "createdAt") VALUES (?, ?, 'question', ?, ?, ?, ?)`)
          .run(q.runId, q.seq, journalName(q.spec), q.journalDigest, q.id, sqliteTime(q.createdAt));
        alongWithNow?.();
      });
      return toQuestion({ ...row, run: { rootRunId: q.rootRunId } });
    },

    pendingIdsOf: (runId: string): Promise<string[]> =>
      direct.read(() => direct.prepare(`SELECT "id" FROM "Question" WHERE "runId" = ? AND "status" = 'pending'`).all<{ id: string }>(runId).map((q) => q.id)),

    /** The first pending question of a session, inside a direct transaction. */
    firstPendingNow: (sessionId: string): Pick<Question, "id" | "runId" | "prompt"> | null =>
      direct.prepare(`SELECT "id", "runId", "prompt" FROM "Question" WHERE "sessionId" = ? AND "status" = 'pending' ORDER BY "createdAt", "id" LIMIT 1`).get<Pick<Question, "id" | "runId" | "prompt">>(sessionId) ?? null,

    claim(id: string, closing: Closing): boolean {
      const { status, closedBy, closedAt, answer, feedback } = closingData(closing);
      return direct.prepare(CLAIM_SQL).run(status, closedBy, sqliteTime(closedAt), answer, feedback, id).changes === 1;
    },
  };
}

/** A pending question as it reads once `closing` has claimed it. */
export const closedAs = (question: Question, { status, closedBy, closedAt, answer, feedback }: Closing): Question => ({
  ...question,
  status,
  closedBy,
  closedAt: closedAt.toISOString(),
  answer: answer === null ? null : (JSON.parse(JSON.stringify(answer)) as JsonValue),
  feedback,
});

const PG_TARGET_SQL = pgPlaceholders(TARGET_SQL);
/** The claim and its receipt in one statement: only a claim that moved the question inserts the receipt, and a twin's receipt (the unique id) fails the whole. */
const PG_CLAIM_RECORDING_SQL = `WITH claimed AS (
    UPDATE "Question" SET "status" = $1, "closedBy" = $2, "closedAt" = $3::timestamp(3), "answer" = $4, "feedback" = $5 WHERE "id" = $6 AND "status" = 'pending' RETURNING "id"
  ), recorded AS (
    INSERT INTO "Command" ("id", "kind", "payloadDigest", "payload", "applyState", "receipt", "createdAt", "appliedAt")
    SELECT $7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::timestamp(3), $13::timestamp(3) FROM claimed RETURNING "id"
  )
  SELECT COUNT(*)::int AS "n" FROM recorded`;

const PG_COUNT_ASKED_SQL = pgPlaceholders(COUNT_ASKED_SQL);
/** A question and its journal entry in one statement, while the run holds the epoch ($26; see lease-fence.ts): the journal entry's seq, or no row. */
const PG_INSERT_SQL = `WITH ${pgHeld("$3", "$26")}, asked AS (
    INSERT INTO "Question" ("id", "sessionId", "runId", "owner", "seq", "pendingId", "targetDigest", "replySchema", "kind", "prompt", "options", "multi", "allowCustom", "detail", "defaultValue", "approval", "status", "answer", "feedback", "closedBy", "closedAt", "createdAt", "expiresAt")
    SELECT $1::text, $2::text, $3::text, $4::text, $5::int, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text, $12::boolean, $13::boolean, $14::text, $15::text, $16::text,
      $17::text, $18::text, $19::text, $20::text, $21::timestamp(3), $22::timestamp(3), $23::timestamp(3) FROM held RETURNING "id"
  )
  INSERT INTO "JournalEntry" ("runId", "seq", "kind", "name", "digest", "questionId", "createdAt")
  SELECT $3::text, $5::int, 'question', $24::text, $25::text, "id", $22::timestamp(3) FROM asked RETURNING "seq"`;

/** The question loop's statements on PostgreSQL's lane: one each, where Prisma sends two to five. */
function createPgQuestionStore(lane: PgLane) {
  return {
    countAsked: async (runId: string): Promise<number> => (await lane.query<{ n: number }>(PG_COUNT_ASKED_SQL, [runId]))[0]!.n,

    /** A question and its journal entry, in one statement (fenced by `epoch`); the question as stored, without reading it back. */
    async insert(q: NewQuestion & { rootRunId: string }, epoch?: HeldEpoch): Promise<Question> {
      const row = questionRow(q);
      const [stored] = await lane.query(PG_INSERT_SQL, [
        row.id, row.sessionId, row.runId, row.owner, row.seq, row.pendingId, row.targetDigest, row.replySchema, row.kind, row.prompt, row.options,
        row.multi, row.allowCustom, row.detail, row.defaultValue, row.approval, row.status, row.answer, row.feedback, row.closedBy,
        row.closedAt && pgTime(row.closedAt), pgTime(row.createdAt), row.expiresAt && pgTime(row.expiresAt),
        journalName(q.spec), q.journalDigest, epoch ?? null,
      ]);
      if (!stored) throw noRunOrLeaseLost(q.runId, epoch);
      return toQuestion({ ...row, run: { rootRunId: q.rootRunId } });
    },

    async target(id: string): Promise<ReplyTarget | null> {
      const [row] = await lane.query<Record<string, unknown>>(PG_TARGET_SQL, [id]);
      if (!row) return null;
      const question = toQuestion({ ...(row as unknown as Parameters<typeof toQuestion>[0]), run: { rootRunId: row.run_rootRunId as string | null } });
      return { question, policy: parsePolicy(row.run_policy as string), ownerId: row.session_ownerId as string, deleted: row.session_deletedAt !== null };
    },

    /** Claims the question and inserts `command` with it: whether this claim won. */
    async claimRecording(id: string, closing: Closing, command: CommandRow): Promise<boolean> {
      const { status, closedBy, closedAt, answer, feedback } = closingData(closing);
      const [row] = await lane.query<{ n: number }>(PG_CLAIM_RECORDING_SQL, [
        status, closedBy, pgTime(closedAt), answer, feedback, id,
        command.id, command.kind, command.payloadDigest, command.payload, command.applyState, command.receipt, pgTime(command.at),
      ]);
      return row!.n === 1;
    },
  };
}

/** Every question query, as small named functions: the question domain does not speak Prisma. */
export function createQuestionStore(db: Db) {
  const lane = directPg(db);
  const pgStore = lane ? createPgQuestionStore(lane) : null;
  const sql = rawSql(db);
  return {
    /** PostgreSQL's lane: the claim with its receipt in one statement (null on SQLite, whose direct lane does more). */
    claimRecording: pgStore?.claimRecording ?? null,
    /** PostgreSQL's lane: a question of a run whose root is known, stored with its journal entry in one statement. */
    insertWithRoot: pgStore?.insert ?? null,

    find: async (id: string): Promise<Question | null> => {
      const row = await db.question.findUnique({ where: { id }, include: QUESTION_WITH_ROOT });
      return row ? toQuestion(row) : null;
    },

    findByPendingId: async (pendingId: string): Promise<Question | null> => {
      const row = await db.question.findUnique({ where: { pendingId }, include: QUESTION_WITH_ROOT });
      return row ? toQuestion(row) : null;
    },

    /** The policy fixed when a run started. */
    policyOf: async (runId: string): Promise<RunPolicy> => parsePolicy((await db.run.findUnique({ where: { id: runId }, select: { policy: true } }))?.policy),

    /** A reply's target (Prisma's way: the direct lane's `target` in three statements). */
    target:
      pgStore?.target ??
      (async (id: string): Promise<ReplyTarget | null> => {
        const row = await db.question.findUnique({
          where: { id },
          include: { run: { select: { rootRunId: true, policy: true } }, session: { select: { ownerId: true, deletedAt: true } } },
        });
        if (!row) return null;
        return { question: toQuestion(row), policy: parsePolicy(row.run.policy), ownerId: row.session.ownerId, deleted: row.session.deletedAt !== null };
      }),

    /** Claim-once: true for the one caller whose conditional update moved the question out of pending. */
    claim: async (id: string, closing: Closing, tx: Tx | Db = db): Promise<boolean> =>
      (await tx.question.updateMany({ where: { id, status: "pending" }, data: closingData(closing) })).count === 1,

    /** Claims a pending question read before (`question`) in one transaction; `alongWith` records what belongs with the claim. */
    claimWith: <T>(question: Question, closing: Closing, alongWith: (tx: Tx, question: Question) => Promise<T>): Promise<T | null> =>
      db.$transaction(async (tx: Tx) => {
        const { count } = await tx.question.updateMany({ where: { id: question.id, status: "pending" }, data: closingData(closing) });
        if (count !== 1) return null;
        return alongWith(tx, closedAs(question, closing));
      }),

    /** What counts against a run's question limit: every question and approval a person was asked (not those a rule settled at once). */
    countAsked:
      pgStore?.countAsked ??
      ((runId: string): Promise<number> => db.question.count({ where: { runId, OR: [{ kind: { not: "approval" } }, { closedBy: null }, { closedBy: { not: "rule" } }] } })),

    /** A session's pending approvals, read inside a transaction. */
    pendingApprovalsIn: async (tx: Tx, sessionId: string): Promise<Question[]> =>
      (await tx.question.findMany({ where: { sessionId, status: "pending", kind: "approval" }, include: QUESTION_WITH_ROOT })).map(toQuestion),

    /** A question and its journal entry, in one transaction (fenced by `epoch`). */
    insert: async (q: NewQuestion, epoch?: HeldEpoch): Promise<Question> => {
      const row = await db.$transaction(async (tx: Tx) => {
        await holdEpoch(sql, tx, q.runId, epoch);
        const created = await tx.question.create({ data: questionRow(q), include: QUESTION_WITH_ROOT });
        await tx.journalEntry.create({ data: { runId: q.runId, seq: q.seq, kind: "question", name: journalName(q.spec), digest: q.journalDigest, questionId: q.id } });
        return created;
      });
      return toQuestion(row);
    },

    /** The first pending question of a session, read inside someone's transaction. */
    firstPendingIn: (tx: Tx, sessionId: string): Promise<Pick<Question, "id" | "runId" | "prompt"> | null> =>
      tx.question.findFirst({ where: { sessionId, status: "pending" }, orderBy: OLDEST_FIRST, select: { id: true, runId: true, prompt: true } }),

    pendingIdsOf: async (runId: string): Promise<string[]> =>
      (await db.question.findMany({ where: { runId, status: "pending" }, select: { id: true } })).map((q) => q.id),

    /** Every question a run asked, in journal order (its audit trail). */
    listOfRun: async (runId: string): Promise<Question[]> =>
      (await db.question.findMany({ where: { runId }, orderBy: { seq: "asc" }, include: QUESTION_WITH_ROOT })).map(toQuestion),

    listPending: async ({ sessionId, runIds }: { sessionId?: string; runIds?: string[] } = {}): Promise<Question[]> => {
      const rows = await db.question.findMany({
        where: { status: "pending", ...(sessionId ? { sessionId } : {}), ...(runIds ? { runId: { in: runIds } } : {}) },
        orderBy: OLDEST_FIRST,
        include: QUESTION_WITH_ROOT,
      });
      return rows.map(toQuestion);
    },

    countPending: (): Promise<number> => db.question.count({ where: { status: "pending" } }),

    /** Pending questions that expire, for the expiry timers. */
    listExpiring: async (before?: Date): Promise<Array<{ id: string; expiresAt: Date }>> =>
      (await db.question.findMany({ where: { status: "pending", expiresAt: before ? { not: null, lt: before } : { not: null } }, select: { id: true, expiresAt: true } })).map((r) => ({
        id: r.id,
        expiresAt: r.expiresAt!,
      })),
  };
}

export type QuestionStore = ReturnType<typeof createQuestionStore>;
