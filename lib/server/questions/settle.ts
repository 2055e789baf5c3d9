import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import type { RunPolicy } from "../../protocol/policy";
import { buildReceipt, type ReplyReceipt } from "../../protocol/commands";
import type { JsonValue, Question, QuestionOutcome } from "../../protocol/question";
import { LOCAL_OWNER } from "../../protocol/access";
import { mayAnswer, waitingFor } from "../../protocol/teams";
import type { ApplyContext, CommandService } from "../ledger/command-ledger";
import type { Db } from "../store/db/client";
import type { DomainEvents } from "../events";
import type { Metrics } from "../metrics";
import { closedAs, type Closing, type QuestionStore, type ReplyTarget } from "../store/questions/question-store";
import type { SqlTx } from "../store/sql-executor";
import type { Closer } from "./question-service";
import type { QuestionTimers } from "./question-timers";
import type { ApprovalVotes, Verdict } from "./votes";

/**
 * Who answers which question (a reply or a decline): `person` sees only the questions of sessions
 * they own or are a member of (an administrator sees all) and may answer only as its answerers
 * allow; `digest` guards against a changed question. Without `person` the server itself answers.
 */
export interface AnswerCommand {
  id: string;
  commandId?: string;
  digest?: string | null;
  by: Closer;
  person?: string;
  admin?: boolean;
}

/** What an answer changed besides its own question. */
export interface AlsoChanged {
  closedIds: string[];
  committed: () => void;
}
const NOTHING_ELSE: AlsoChanged = { closedIds: [], committed: () => {} };

/** How a person's answer settles its question: what it closes it with, checked against the run's policy. */
export type Decide = (
  question: Question,
  policy: RunPolicy,
  tx: SqlTx,
) => Promise<{ status: "answered" | "declined"; answer: JsonValue | null; feedback: string | null; editedInput?: Record<string, unknown> | null }>;

/** A person's answer to settle: the command, how it decides, and what else it changes. */
export interface PersonalAnswer {
  kind: ReplyReceipt["kind"];
  command: Omit<AnswerCommand, "digest"> & { payload: { digest: string | null } };
  decide: Decide;
  /** What applies whatever the outcome (a reply's size and depth under the run's policy). */
  limit?: (policy: RunPolicy) => void;
  /** More the same answer changes, in its transaction (an "Allow always" rule and the approvals it covers), or null when it changes nothing else. */
  alongWith?: (question: Question) => ((tx: SqlTx) => Promise<AlsoChanged>) | null;
}

/** Claim-once settlement of questions: the first answer wins, on every surface. */
export interface QuestionSettlement {
  getQuestion({ id }: { id: string }): Promise<Question>;
  /** Claim-once for the server's own closers (timeout, stop, lost worker): null when it was already settled. */
  settle(id: string, closer: { status: QuestionOutcome; by: Closer; answer?: JsonValue | null; feedback?: string | null }): Promise<Question | null>;
  /** A person's reply or decline, with its receipt. */
  answer(answer: PersonalAnswer): Promise<ReplyReceipt>;
  /** A question just closed (its run and every tab hear it). */
  announce(question: Question): void;
  /** How a question closes now. */
  closing(status: QuestionOutcome, by: Closer, answer: JsonValue | null, feedback: string | null): Closing;
}

export interface SettlementDeps {
  db: Db;
  store: QuestionStore;
  events: DomainEvents;
  commands: CommandService;
  now: () => Date;
  metrics: Pick<Metrics, "time">;
  /** The answer queue: where every settled question goes (its run). */
  deliver: (question: Question) => void;
  timers: Pick<QuestionTimers, "clear">;
  votes: ApprovalVotes;
}

/** The claim of a question read pending while held cannot lose (answer reads it so): one that did is a fault, not a late reply. */
function claimedHeld(won: boolean): void {
  if (!won) throw new Error("The claim of a held pending question changed nothing.");
}

/** The receipts of one command: applied, or too late for its target. */
interface Receipts {
  applied(outcome: ReplyReceipt["outcome"], question: Question): ReplyReceipt;
  late(question: Question): ReplyReceipt;
}

function receiptsOf(commandId: string, kind: ReplyReceipt["kind"]): Receipts {
  const receipt = (apply_state: ReplyReceipt["apply_state"], outcome: ReplyReceipt["outcome"], question: Question) => buildReceipt<ReplyReceipt>({ commandId, kind, apply_state, outcome, question });
  return {
    applied: (outcome, question) => receipt("applied", outcome, question),
    late(question) {
      const outcome = question.status === "pending" ? "stale_target" : question.status === "answered" || question.status === "declined" ? "already_answered" : "already_closed";
      return receipt("target_closed", outcome, question);
    },
  };
}

/** The target as `person` may answer it: not found when they cannot see it, refused when it waits for others. */
function visibleTo(target: ReplyTarget | null, { id, person, admin }: { id: string; person?: string; admin: boolean }): ReplyTarget {
  const sees = (t: ReplyTarget) => !t.deleted && (admin || t.ownerId === person || t.member);
  if (!target || (person !== undefined && !sees(target))) throw new AppError("not_found:question", `No question with id ${quoteId(id)}.`);
  if (person !== undefined && !mayAnswer(target.question, person)) {
    const names = waitingFor(target.question) ?? [];
    throw new AppError("not_an_answerer", `Only ${names.join(" or ") || "the people it names"} may answer this question; it waits for them.`);
  }
  return target;
}

type Won = { question: Question; receipt: ReplyReceipt; also: AlsoChanged };
type Claimed = Won | { late: ReplyReceipt } | { vote: ReplyReceipt };

/** One answer's claim inside its transaction: its command's context and receipts. */
interface ClaimContext extends PersonalAnswer {
  ledger: Pick<ApplyContext<ReplyReceipt>, "record" | "claimsQueued">;
  receipts: Receipts;
}

/**
 * The lifecycle of questions out of `pending`. The database is the authority: every transition is
 * one conditional update, so exactly one of any number of concurrent settlers wins.
 */
export function createSettlement({ db, store, events, commands, now, metrics, deliver, timers, votes }: SettlementDeps): QuestionSettlement {
  const closing = (status: QuestionOutcome, by: Closer, answer: JsonValue | null, feedback: string | null): Closing => ({ status, closedBy: by, closedAt: now(), answer, feedback });

  async function getQuestion({ id }: { id: string }): Promise<Question> {
    const question = await store.find(id);
    if (!question) throw new AppError("not_found:question", `No question with id ${quoteId(id)}.`);
    return question;
  }

  async function closed(id: string): Promise<Question> {
    const question = await getQuestion({ id });
    announce(question);
    return question;
  }

  /**
   * A question just closed: its timer goes, its run is handed the settlement, then every tab hears
   * it. The tabs' retraction is written in this turn, before the worker can answer: the run's next
   * line reaches them after it, while its worker starts on the answer as the retraction is written.
   */
  function announce(question: Question, broadcast?: () => void): void {
    timers.clear(question.id);
    try {
      deliver(question);
    } finally {
      events.emit("question.closed", question);
      broadcast?.();
    }
  }

  /** What this answer closes the question with, or why it comes too late. */
  async function judged({ command, decide, limit, receipts }: ClaimContext, target: ReplyTarget, tx: SqlTx): Promise<Verdict | { late: ReplyReceipt }> {
    limit?.(target.policy);
    const { question } = target;
    const { digest } = command.payload;
    if (question.status !== "pending" || (digest !== null && digest !== question.targetDigest)) return { late: receipts.late(question) };
    const { status, answer, feedback, editedInput = null } = await decide(question, target.policy, tx);
    return { closing: { ...closing(status, command.by, answer, feedback), closedByUser: command.person ?? null, editedInput }, status };
  }

  /** A vote on an approval that needs several people: a receipt of the vote, or the question it settled. */
  async function voted(ctx: ClaimContext, tx: SqlTx, target: ReplyTarget, verdict: Verdict): Promise<Claimed> {
    const { command, receipts, ledger } = ctx;
    const count = await votes.cast(tx, target, verdict, command);
    if (!count.decides) {
      const vote = receipts.applied("voted", { ...target.question, votes: count.votes });
      await ledger.record(tx, vote);
      return { vote };
    }
    claimedHeld(await store.claim(command.id, count.closing, tx));
    const question = { ...closedAs(target.question, count.closing), votes: count.votes };
    const receipt = receipts.applied(verdict.status, question);
    await ledger.record(tx, receipt);
    return { question, receipt, also: NOTHING_ELSE };
  }

  /** Read the target held, decide, claim and record the receipt in one transaction (on SQLite it joins the grouped commit). */
  async function claimIn(ctx: ClaimContext, tx: SqlTx): Promise<Claimed> {
    const { command, receipts, ledger, alongWith } = ctx;
    const { id, person } = command;
    // Read held (on PostgreSQL one round trip with BEGIN): another settler's claim waits for this transaction, or
    // this one reads the question as that claim left it; so the claim of a question read pending cannot lose.
    const target = visibleTo(await store.heldTarget(tx, id, person ?? LOCAL_OWNER), { id, person, admin: command.admin ?? false });
    const verdict = await judged(ctx, target, tx);
    if ("late" in verdict) {
      // Only a caller's own commandId can ask for a late receipt again: without one there is nothing to keep.
      if (command.commandId !== undefined) await ledger.record(tx, verdict.late);
      return { late: verdict.late };
    }
    if (target.question.approvals) return voted(ctx, tx, target, verdict);
    const question = closedAs(target.question, verdict.closing);
    const receipt = receipts.applied(verdict.status, question);
    const also = alongWith?.(question) ?? null;
    const claimAndRecord = () => Promise.all([store.claim(id, verdict.closing, tx), ledger.record(tx, receipt)]);
    // Claimed and recorded together; with nothing else to change, and a receipt that can only fail as an error
    // (not a queued command's claim), on PostgreSQL the COMMIT leaves with them.
    const [won] = await (also || ledger.claimsQueued ? claimAndRecord() : tx.commitWith(claimAndRecord));
    claimedHeld(won);
    return { question, receipt, also: (await also?.(tx)) ?? NOTHING_ELSE };
  }

  /**
   * Replies and declines: idempotent by commandId, guarded by the digest, claim-once. `limit`
   * checks what applies whatever the outcome before anything is stored, so a late or stale reply
   * cannot store more than a winning one. Given `person`, a question of a session they cannot see
   * (or of a session being deleted) is not found.
   *
   * The whole of it (read the target, decide, claim, record the receipt, and what `alongWith`
   * changes: "Allow always") is one transaction; the answer is handed to the run as the retraction
   * is broadcast (announce).
   */
  function answer(answer: PersonalAnswer): Promise<ReplyReceipt> {
    const { kind, command } = answer;
    const broadcast = metrics.time("reply.broadcast");
    const delivered = metrics.time("reply.deliver");
    return commands.run<ReplyReceipt>({ commandId: command.commandId, kind, payload: command.payload }, async ({ commandId, record, claimsQueued }) => {
      const ctx: ClaimContext = { ...answer, ledger: { record, claimsQueued }, receipts: receiptsOf(commandId, kind) };
      const claimed = metrics.time("reply.claim");
      const won = await db.exec.transaction((tx) => claimIn(ctx, tx));
      claimed();
      if ("late" in won) return won.late;
      if ("vote" in won) {
        events.emit("question.updated", won.vote.question);
        return won.vote;
      }
      announce(won.question, broadcast);
      delivered();
      for (const other of won.also.closedIds) await closed(other);
      won.also.committed();
      return won.receipt;
    });
  }

  return {
    getQuestion,
    async settle(id, { status, by, answer = null, feedback = null }) {
      if (!(await store.claim(id, closing(status, by, answer, feedback)))) return null;
      return closed(id);
    },
    answer,
    announce: (question) => announce(question),
    closing,
  };
}
