import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import { commandPayload, type ReplyReceipt } from "../../protocol/commands";
import type { JsonValue, Question, QuestionOutcome } from "../../protocol/question";
import type { ClosedBy } from "../../protocol/surfaces";
import type { CommandService } from "../ledger/command-ledger";
import type { Db } from "../store/db/client";
import type { DomainEvents } from "../events";
import type { Metrics } from "../metrics";
import { grantEnd } from "../permissions/grant-end";
import { checkEdit, noEditedCalls, type EditedCallReader } from "./approval-edit";
import { defaultJudge, type ApprovalJudge } from "./approvals";
import { createQuestionStore, type QuestionStore } from "../store/questions/question-store";
import { checkReplyLimits, validateReply } from "./validate-reply";
import { createMemberStore } from "../store/members/member-store";
import type { SqlTx } from "../store/sql-executor";
import { createAlwaysRules } from "./always-rules";
import { createAsking, type NewQuestion } from "./ask-question";
import { createEscalation } from "./escalation";
import { createQuestionTimers, OWN_TIMERS, type TimerOwner } from "./question-timers";
import { createSettlement, type AnswerCommand } from "./settle";
import { createApprovalVotes } from "./votes";

export { targetDigestOf, type AskingRun, type NewQuestion } from "./ask-question";
export type { TimerOwner } from "./question-timers";
export type { AnswerCommand } from "./settle";

/** Who or what settled a question, stored as `closedBy`: lib/protocol/surfaces.ts. */
export type Closer = ClosedBy;

export interface QuestionServiceDeps {
  db: Db;
  events: DomainEvents;
  commands: CommandService;
  now?: () => Date;
  /** Times the reply's phases (nothing by default). */
  metrics?: Pick<Metrics, "time">;
  /** The answer queue: where every settled question goes (its run). */
  settled?: (question: Question) => void;
  /** The permission rules approvals are decided by (by default dangerous tools ask, the rest run). */
  judge?: ApprovalJudge;
  /** Whether this node keeps the expiry timers (several nodes: one does), and where it hands one otherwise. */
  timerOwner?: TimerOwner;
  /** Reads an approval's call again with an edited input ("Edit and allow"); none: no approval is edited. */
  editedCalls?: EditedCallReader;
}

const UNTIMED: Pick<Metrics, "time"> = { time: () => () => {} };

/** The lifecycle of questions: asked, answered by the first person (or closed by the server), timed. */
export interface QuestionService {
  getQuestion(query: { id: string }): Promise<Question>;
  /** The first pending question of a session, read inside a transaction. */
  firstPendingIn(tx: SqlTx, query: { sessionId: string }): ReturnType<QuestionStore["firstPendingIn"]>;
  /** Claim-once for the server's own closers (timeout, stop, lost worker): null when it was already settled. */
  settle(id: string, closer: { status: QuestionOutcome; by: Closer; answer?: JsonValue | null; feedback?: string | null }): Promise<Question | null>;
  /** Stores a question the run asked, with its journal entry, after the run's policy allows it. */
  create(question: NewQuestion): Promise<Question>;
  /**
   * Checks a reply as `reply` would, without applying it (the CLI refuses what the server would):
   * in full while the question is pending, else only the limits every reply meets.
   */
  checkReply(reply: { question: Question; value: unknown }): Promise<void>;
  reply(command: AnswerCommand & { value: unknown; input?: Record<string, unknown>; until?: string }): Promise<ReplyReceipt>;
  reject(command: AnswerCommand & { message?: string | null }): Promise<ReplyReceipt>;
  /** Ends every pending question of a run (stop, run end, lost worker). Returns the ones this call ended. */
  closeForRun(end: { runId: string; status: "cancelled" | "expired"; by: Closer; feedback?: string | null }): Promise<Question[]>;
  listPending: QuestionStore["listPending"];
  countPending: QuestionStore["countPending"];
  listOfRun: QuestionStore["listOfRun"];
  findByPendingId(query: { runId: string; pendingId: string }): Promise<Question>;
  /** A question asked on another node expires at this time (this node owns the timers). */
  expireAt(id: string, expiresAt: Date): void;
  /** This node no longer owns the expiry timers. */
  dropTimers(): void;
  /**
   * At start-up (and on the node that owns the timers, in rounds): expiry is the server's job, so
   * rebuild a timer for every pending question that expires (before `before`, when given).
   */
  rescheduleExpiries(before?: Date): Promise<void>;
  /** The next escalation step of a pending question (null when there is none to take). */
  escalate(id: string): Promise<Question | null>;
  dispose(): void;
}

/**
 * Composes the question service from its parts: asking (ask-question), the claim and its receipts
 * (settle), votes, "Allow always" rules, escalation and timers. The database is the authority:
 * every transition out of `pending` is one conditional update, so exactly one settler wins.
 */
export function createQuestionService({
  db,
  events,
  commands,
  now = () => new Date(),
  metrics = UNTIMED,
  settled: deliver = () => {},
  judge = defaultJudge,
  timerOwner = OWN_TIMERS,
  editedCalls = noEditedCalls,
}: QuestionServiceDeps): QuestionService {
  const store = createQuestionStore(db);
  // The timers fire into the settlement and the escalation, which clear and re-arm them.
  const timers = createQuestionTimers({
    now,
    owner: timerOwner,
    actions: { expire: (id) => settlement.settle(id, { status: "timed_out", by: "timeout" }), escalate: (id) => escalation.escalate(id) },
  });
  const votes = createApprovalVotes({ store, now });
  const settlement = createSettlement({ db, store, events, commands, now, metrics, deliver, timers, votes });
  const escalation = createEscalation({ store, events, timers });
  const always = createAlwaysRules({ judge, store, closing: settlement.closing });
  const asking = createAsking({ store, members: createMemberStore(db.exec), judge, events, now, timers, settlement });

  return {
    getQuestion: settlement.getQuestion,
    firstPendingIn: (tx, { sessionId }) => store.firstPendingIn(tx, sessionId),
    settle: settlement.settle,
    create: asking.create,

    async checkReply({ question, value }) {
      const policy = await store.policyOf(question.runId);
      if (question.status === "pending") validateReply(question, policy, value);
      else checkReplyLimits(policy, value);
    },

    async reply({ id, value, input, until, commandId, digest, by, person, admin }) {
      const payload = commandPayload("send_input", { questionId: id, value, input, until, digest });
      let ends: Date | null = null;
      return settlement.answer({
        kind: "send_input",
        command: { id, commandId, by, payload, person, admin },
        async decide(question, policy, tx) {
          const answer = validateReply(question, policy, value);
          if (payload.until !== undefined) {
            if (answer !== "always" && answer !== "always_wider") throw new AppError("invalid_answer", 'until is for "Allow always": how long the rule it adds lasts.');
            ends = grantEnd(payload.until, { code: "invalid_answer" });
          }
          const editedInput = payload.input ? await checkEdit({ judge, read: editedCalls }, { question, answer, input: payload.input, tx }) : null;
          return { status: "answered", answer, feedback: null, editedInput };
        },
        limit: (policy) => checkReplyLimits(policy, value),
        alongWith: (question) => always.alongWith(question, ends),
      });
    },

    async reject({ id, message, commandId, digest, by, person, admin }) {
      const payload = commandPayload("reject_input", { questionId: id, message, digest });
      return settlement.answer({
        kind: "reject_input",
        command: { id, commandId, by, payload, person, admin },
        decide: async () => ({ status: "declined", answer: null, feedback: message?.trim() || null }),
      });
    },

    async closeForRun({ runId, status, by, feedback = null }) {
      const ended = await Promise.all((await store.pendingIdsOf(runId)).map((id) => settlement.settle(id, { status, by, feedback })));
      return ended.filter((q): q is Question => q !== null);
    },

    listPending: store.listPending,
    countPending: store.countPending,
    listOfRun: store.listOfRun,

    async findByPendingId({ runId, pendingId }) {
      const question = await store.findByPendingId(pendingId);
      if (!question || question.runId !== runId) throw new AppError("not_found:question", `Run ${quoteId(runId)} has no question with pending id ${quoteId(pendingId)}.`);
      return question;
    },

    expireAt: timers.expireAt,
    dropTimers: timers.clearAll,
    rescheduleExpiries: (before) => timers.rebuild(store, before),
    escalate: escalation.escalate,
    dispose: timers.clearAll,
  };
}
