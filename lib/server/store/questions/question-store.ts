import { RunPolicySchema, type RunPolicy } from "../../../protocol/policy";
import type { ClosedBy } from "../../../protocol/surfaces";
import type { JsonValue, Question, QuestionOutcome, QuestionSpec } from "../../../protocol/question";
import type { Vote } from "../../../protocol/teams";
import type { Db } from "../db/client";
import { toQuestion } from "../db/mappers";
import { fenced, noRunOrLeaseLost, type HeldEpoch } from "../../cluster/lease-fence";
import type { SqlReader, SqlTx } from "../sql-executor";
import type { RowOf } from "../typed-sql";
import * as Q from "./question-statements";
import { heldRun, insertJournal, journalEntry } from "../runs/run-statements";

/** How a question left `pending`. */
export interface Closing {
  status: QuestionOutcome;
  closedBy: ClosedBy;
  closedAt: Date;
  answer: JsonValue | null;
  feedback: string | null;
  /** The person whose answer closed it. */
  closedByUser?: string | null;
  /** The permission rule that decided it. */
  closedByRule?: string | null;
  /** An approval allowed with an edited input: the input the tool runs with. */
  editedInput?: Record<string, unknown> | null;
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

const closingData = ({ status, closedBy, closedAt, answer, feedback, closedByUser = null, closedByRule = null, editedInput = null }: Closing) => ({
  status,
  closedBy,
  closedAt,
  answer: answer === null ? null : JSON.stringify(answer),
  feedback,
  closedByUser,
  closedByRule,
  editedInput: editedInput === null ? null : JSON.stringify(editedInput),
});

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
    answerers: spec.answerers ? JSON.stringify(spec.answerers) : null,
    approvals: spec.approvals ? JSON.stringify({ required: spec.approvals.required, from: spec.approvals.from ?? null, rejections: spec.approvals.rejections }) : null,
    escalate: spec.escalate ? JSON.stringify(spec.escalate) : null,
    escalated: 0,
    escalateAt: spec.escalate && !q.closing ? new Date(q.createdAt.getTime() + spec.escalate[0]!.afterMs) : null,
    ...(q.closing ? closingData(q.closing) : { status: "pending", closedBy: null, closedAt: null, answer: null, feedback: null, closedByUser: null, closedByRule: null, editedInput: null }),
    createdAt: q.createdAt,
    expiresAt: q.expiresAt,
  };
}

/** What a reply needs to know of its target before it claims it, read at once. */
export interface ReplyTarget {
  question: Question;
  policy: RunPolicy;
  /** The session's owner, whether its delete has begun, and whether the person answering is a member: who may see the question. */
  ownerId: string;
  deleted: boolean;
  member: boolean;
}

const parsePolicy = (text: string | null | undefined): RunPolicy => RunPolicySchema.parse(JSON.parse(text ?? "{}"));

/** A reply's target as the joined read gives it (both engines' rows decode alike). */
const targetOf = (row: RowOf<typeof Q.target> | undefined): ReplyTarget | null =>
  row
    ? {
        question: toQuestion(row),
        policy: parsePolicy(row.run_policy),
        ownerId: row.session_ownerId,
        deleted: row.session_deletedAt !== null,
        member: Boolean(row.session_member),
      }
    : null;

/** A pending question as it reads once `closing` has claimed it. */
export const closedAs = (question: Question, { status, closedBy, closedAt, answer, feedback, closedByUser = null, closedByRule = null, editedInput = null }: Closing): Question => ({
  ...question,
  status,
  closedBy,
  closedByUser,
  closedByRule,
  editedInput,
  closedAt: closedAt.toISOString(),
  answer: answer === null ? null : (JSON.parse(JSON.stringify(answer)) as JsonValue),
  feedback,
});

const withRoot = (row: RowOf<typeof Q.byId>): Question => toQuestion(row);

const toVote = (row: RowOf<typeof Q.votesOf>): Vote => ({ user: row.userId, decision: row.decision as Vote["decision"], at: row.createdAt.toISOString(), feedback: row.feedback });

/** Questions with their votes: only an approval that needs several people has any, all read in one statement. */
export async function withVotes<T extends Question | null>(questions: T[], on: SqlReader): Promise<T[]> {
  const ids = questions.flatMap((q) => (q?.approvals ? [q.id] : []));
  if (ids.length === 0) return questions;
  const votes = await on.rows(Q.votesOf, { ids: JSON.stringify(ids) });
  return questions.map((q) => (q?.approvals ? { ...q, votes: votes.filter((v) => v.questionId === q.id).map(toVote) } : q));
}
const one = (rows: Array<RowOf<typeof Q.byId>>): Question | null => (rows[0] ? toQuestion(rows[0]) : null);
const oldestFirst = (a: Question, b: Question) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

/** Every question query, as small named functions: the question domain does not speak Prisma. */
export function createQuestionStore(db: Db) {
  const { exec } = db;
  const targetWith = async (read: typeof Q.target, id: string, person: string, on: SqlReader): Promise<ReplyTarget | null> => {
    const found = targetOf((await on.rows(read, { id, person }))[0]);
    return found?.question.approvals ? { ...found, question: (await withVotes([found.question], on))[0]! } : found;
  };
  return {
    /**
     * A question and its journal entry, stored together while its run holds `epoch`; the question as
     * stored, without reading it back. `withinLimit` is told, in the same transaction, how many
     * questions count against the run's limit so far (every question and approval a person was
     * asked, not those a rule settled at once); it throws to refuse this one. The root of the run's
     * tree is read there when the caller does not know it. `alongWith` writes what belongs with
     * the question in the same transaction (its run's move to waiting).
     */
    async insert(q: NewQuestion & { rootRunId: string | null }, epoch?: HeldEpoch, withinLimit?: (asked: number) => void, alongWith?: (tx: SqlTx) => Promise<void>): Promise<Question> {
      const row = questionRow(q);
      const rootRunId = await exec.transaction(async (tx) => {
        // Issued together (on PostgreSQL one round trip each step): BEGIN with the reads, then the writes they allow with COMMIT.
        const [[held], asked] = await Promise.all([tx.rows(heldRun, { id: q.runId, epoch: fenced(epoch) ? epoch : null }), withinLimit && tx.rows(Q.countAsked, { runId: q.runId })]);
        if (!held) throw noRunOrLeaseLost(q.runId, epoch);
        if (withinLimit && asked) withinLimit(asked[0]!.n);
        // Nothing they return can refuse the question (the run's hold and its limit were checked): COMMIT leaves with them.
        await tx.commitWith(() =>
          Promise.all([
            tx.changes(Q.insertQuestion, row),
            tx.changes(
              insertJournal,
              journalEntry({ runId: q.runId, seq: q.seq, kind: "question", name: q.spec.prompt.slice(0, 200), digest: q.journalDigest, questionId: q.id, createdAt: q.createdAt }),
            ),
            alongWith?.(tx),
          ]),
        );
        return q.rootRunId ?? held.rootRunId ?? q.runId;
      });
      return toQuestion({ ...row, run_rootRunId: rootRunId });
    },

    find: async (id: string): Promise<Question | null> => (await withVotes([one(await exec.rows(Q.byId, { id }))], exec))[0]!,
    findByPendingId: async (pendingId: string): Promise<Question | null> => one(await exec.rows(Q.byPendingId, { pendingId })),

    /** The policy fixed when a run started. */
    policyOf: async (runId: string): Promise<RunPolicy> => parsePolicy((await exec.rows(Q.runPolicyAndRoot, { runId }))[0]?.policy),

    /** A reply's target, read at once (and whether `person` is a member of its session). */
    target: (id: string, person: string, on: SqlReader = exec): Promise<ReplyTarget | null> => targetWith(Q.target, id, person, on),

    /** A reply's target, its question held until `tx` ends (Q.heldTarget): what a claim or a vote in `tx` reads. */
    heldTarget: (tx: SqlTx, id: string, person: string): Promise<ReplyTarget | null> => targetWith(Q.heldTarget, id, person, tx),

    /**
     * A person's vote (their first one counts), then every vote on the question in the order they
     * counted (the question is held): a vote is stamped after the ones before it, whatever the
     * clock of the node it came to says.
     */
    vote: async (tx: SqlTx, vote: { questionId: string; userId: string; decision: Vote["decision"]; feedback: string | null; surface: string; createdAt: Date }): Promise<Vote[]> => {
      const before = (await tx.rows(Q.votesOf, { ids: JSON.stringify([vote.questionId]) })).map(toVote);
      const after = before.length === 0 ? -Infinity : Date.parse(before.at(-1)!.at) + 1;
      const createdAt = new Date(Math.max(vote.createdAt.getTime(), after));
      if ((await tx.changes(Q.insertVote, { ...vote, createdAt })) === 0) return before;
      return [...before, { user: vote.userId, decision: vote.decision, at: createdAt.toISOString(), feedback: vote.feedback }];
    },

    /** Claim-once: true for the one caller whose conditional update moved the question out of pending. */
    claim: async (id: string, closing: Closing, tx: Pick<SqlTx, "changes"> = exec): Promise<boolean> => (await tx.changes(Q.claim, { id, ...closingData(closing) })) === 1,

    /** A session's pending approvals, read inside a transaction. */
    pendingApprovalsIn: async (tx: SqlTx, sessionId: string): Promise<Question[]> => (await tx.rows(Q.pendingApprovalsInSession, { sessionId })).map(withRoot),

    /** The first pending question of a session, read inside someone's transaction. */
    firstPendingIn: async (tx: SqlTx, sessionId: string): Promise<Pick<Question, "id" | "runId" | "prompt"> | null> => (await tx.rows(Q.firstPending, { sessionId }))[0] ?? null,

    pendingIdsOf: async (runId: string): Promise<string[]> => (await exec.rows(Q.pendingIdsOf, { runId })).map((q) => q.id),

    /** Every question a run asked, in journal order (its audit trail). */
    listOfRun: async (runId: string): Promise<Question[]> => withVotes((await exec.rows(Q.ofRun, { runId })).map(withRoot), exec),

    /** Pending questions, oldest first: all, a session's, or those of the runs named. */
    listPending: async ({ sessionId, runIds }: { sessionId?: string; runIds?: string[] } = {}): Promise<Question[]> => {
      if (runIds) return withVotes((await Promise.all(runIds.map((runId) => exec.rows(Q.pendingOfRun, { runId })))).flat().map(withRoot).sort(oldestFirst), exec);
      return withVotes((await (sessionId === undefined ? exec.rows(Q.pending, {}) : exec.rows(Q.pendingInSession, { sessionId }))).map(withRoot), exec);
    },

    countPending: async (): Promise<number> => (await exec.rows(Q.countPending, {}))[0]!.n,

    /** Pending questions whose next escalation step is due (before `before`), for the escalation timers. */
    listEscalating: async (before?: Date): Promise<Array<{ id: string; escalateAt: Date }>> =>
      (await exec.rows(Q.escalating, { before: before ?? null })).map((r) => ({ id: r.id, escalateAt: r.escalateAt! })),

    /** Takes escalation step `from` (true for the one caller that took it), setting when the next is due. */
    escalate: async (id: string, from: number, nextAt: Date | null): Promise<boolean> => (await exec.changes(Q.escalateStep, { id, from, to: from + 1, nextAt })) === 1,

    /** Pending questions that expire, for the expiry timers. */
    listExpiring: async (before?: Date): Promise<Array<{ id: string; expiresAt: Date }>> =>
      (await exec.rows(Q.expiring, { before: before ?? null })).map((r) => ({ id: r.id, expiresAt: r.expiresAt! })),
  };
}

export type QuestionStore = ReturnType<typeof createQuestionStore>;
