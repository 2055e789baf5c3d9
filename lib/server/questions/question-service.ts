import { createHash, randomBytes } from "node:crypto";
import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import type { RunPolicy } from "../../protocol/policy";
import { canonicalJson } from "../../protocol/plain-json";
import { buildReceipt, commandPayload, type ReplyReceipt } from "../../protocol/commands";
import type { JsonValue, Question, QuestionOutcome, QuestionSpec } from "../../protocol/question";
import type { CommandService } from "../ledger/command-ledger";
import type { Db } from "../store/db/client";
import type { DomainEvents } from "../events";
import type { Metrics } from "../metrics";
import { alwaysFeedback, alwaysRule, coveredBy, defaultJudge, settlementAtAsk, type ApprovalJudge } from "./approvals";
import { closedAs, createQuestionStore, type Closing, type ReplyTarget } from "../store/questions/question-store";
import { checkReplySchema } from "./reply-schema";
import type { HeldEpoch } from "../cluster/lease-fence";
import { checkReplyLimits, validateReply } from "./validate-reply";
import { log } from "../log";
import type { SqlTx } from "../store/sql-executor";

/** Who or what settled a question; stored as `closedBy`. */
export type Closer = "socket" | "terminal" | "rest" | "push" | "cli" | "text" | "channel" | "rule" | "timeout" | "stop" | "run_end" | "worker_exit" | "restart" | "internal";

const MAX_TIMER_MS = 2 ** 31 - 1;

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
}

export interface TimerOwner {
  owns(): boolean;
  handOff(id: string, expiresAt: Date): void;
}

const OWN_TIMERS: TimerOwner = { owns: () => true, handOff: () => {} };

const UNTIMED: Pick<Metrics, "time"> = { time: () => () => {} };

/** The run a question belongs to, as far as asking is concerned. */
export interface AskingRun {
  id: string;
  sessionId: string;
  functionName: string;
  policy: RunPolicy;
  /** false for a run nobody can answer: an approval a rule does not decide is denied at once. */
  canAsk?: boolean;
  /** The root of the run's tree, when the caller knows it (the question is then stored without reading anything back). */
  rootRunId?: string;
}

export function targetDigestOf(runId: string, questionId: string, spec: Pick<QuestionSpec, "kind" | "prompt" | "options" | "multi" | "allowCustom" | "replySchema">): string {
  const target = { runId, questionId, kind: spec.kind, prompt: spec.prompt, options: spec.options, multi: spec.multi, allowCustom: spec.allowCustom, replySchema: spec.replySchema };
  return createHash("sha256").update(canonicalJson(target)).digest("hex");
}

/** Who answers which question (a reply or a decline): `ownerId` (the person replying) hides the questions of sessions they neither own nor are a member of, `digest` guards against a changed one. */
interface AnswerCommand {
  id: string;
  commandId?: string;
  digest?: string | null;
  by: Closer;
  ownerId?: string;
}

/** What a question the run asks is stored with. */
interface NewQuestion {
  id: string;
  run: AskingRun;
  seq: number;
  digest: string;
  spec: QuestionSpec;
  /** The lease epoch the asking run's node holds: the insert changes nothing (RunLeaseLost) once another node took the run over. */
  epoch?: HeldEpoch;
}

/** What an answer changed besides its own question. */
interface AlsoChanged {
  closedIds: string[];
  committed: () => void;
}
const NOTHING_ELSE: AlsoChanged = { closedIds: [], committed: () => {} };

const newPendingId = () => `p_${randomBytes(6).toString("hex")}`;

/**
 * The lifecycle of questions. The database is the authority: every transition out of `pending`
 * is one conditional update, so exactly one of any number of concurrent settlers wins.
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
}: QuestionServiceDeps) {
  const store = createQuestionStore(db);
  const timers = new Map<string, NodeJS.Timeout>();

  function clearTimer(id: string) {
    const timer = timers.get(id);
    if (timer) clearTimeout(timer);
    timers.delete(id);
  }

  function clearTimers(): void {
    for (const timer of timers.values()) clearTimeout(timer);
    timers.clear();
  }

  function expireLater(id: string, expiresAt: Date) {
    if (timerOwner.owns()) scheduleExpiry(id, expiresAt);
    else timerOwner.handOff(id, expiresAt);
  }

  function scheduleExpiry(id: string, expiresAt: Date) {
    clearTimer(id);
    const delay = Math.max(0, expiresAt.getTime() - now().getTime());
    const timer = setTimeout(
      () => {
        timers.delete(id);
        if (delay > MAX_TIMER_MS) return scheduleExpiry(id, expiresAt);
        void settle(id, { status: "timed_out", by: "timeout" }).catch((err) => log.error({ questionId: id, err }, `[questions] could not time out ${id}`));
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    timer.unref();
    timers.set(id, timer);
  }

  async function getQuestion({ id }: { id: string }): Promise<Question> {
    const question = await store.find(id);
    if (!question) throw new AppError("not_found:question", `No question with id ${quoteId(id)}.`);
    return question;
  }

  const closing = (status: QuestionOutcome, by: Closer, answer: JsonValue | null, feedback: string | null): Closing => ({ status, closedBy: by, closedAt: now(), answer, feedback });

  /** Claim-once for the server's own closers (timeout, stop, lost worker): null when it was already settled. */
  async function settle(
    id: string,
    { status, by, answer = null, feedback = null }: { status: QuestionOutcome; by: Closer; answer?: JsonValue | null; feedback?: string | null },
  ): Promise<Question | null> {
    if (!(await store.claim(id, closing(status, by, answer, feedback)))) return null;
    return closed(id);
  }

  async function closed(id: string): Promise<Question> {
    const question = await getQuestion({ id });
    announce(question);
    return question;
  }

  /** A question just closed: its timer goes, every tab hears it (first), then its run. */
  function announce(question: Question, broadcast?: () => void): void {
    clearTimer(question.id);
    events.emit("question.closed", question);
    broadcast?.();
    deliver(question);
  }

  type Kind = ReplyReceipt["kind"];

  /**
   * Replies and declines: idempotent by commandId, guarded by the digest, claim-once. `limit`
   * checks what applies whatever the outcome (a reply's size and depth under the run's policy)
   * before anything is stored, so a late or stale reply cannot store more than a winning one.
   * Given `ownerId`, a question of a session they neither own nor are a member of (or of a session being deleted) is not found.
   *
   * The whole of it (read the target, decide, claim, record the receipt, and what `alongWith`
   * changes: "Allow always") is one transaction; the retraction is broadcast before the answer is
   * delivered to the run.
   */
  function personalSettle(
    kind: Kind,
    { id, commandId, by, payload, ownerId }: Omit<AnswerCommand, "digest"> & { payload: { digest: string | null } },
    decide: (question: Question, policy: RunPolicy) => { status: "answered" | "declined"; answer: JsonValue | null; feedback: string | null },
    limit: (policy: RunPolicy) => void = () => {},
    /** More the same answer changes, in its transaction (an "Allow always" rule and the approvals it covers), or null when it changes nothing else. */
    alongWith: (question: Question) => ((tx: SqlTx) => Promise<AlsoChanged>) | null = () => null,
  ): Promise<ReplyReceipt> {
    const { digest } = payload;
    const broadcast = metrics.time("reply.broadcast");
    const delivered = metrics.time("reply.deliver");
    return commands.run<ReplyReceipt>({ commandId, kind, payload }, async ({ commandId: cid, record }) => {
      const receipt = (apply_state: ReplyReceipt["apply_state"], outcome: ReplyReceipt["outcome"], question: Question) =>
        buildReceipt<ReplyReceipt>({ commandId: cid, kind, apply_state, outcome, question });
      const lateReceipt = (question: Question): ReplyReceipt => {
        const outcome = question.status === "pending" ? "stale_target" : question.status === "answered" || question.status === "declined" ? "already_answered" : "already_closed";
        return receipt("target_closed", outcome, question);
      };
      const visible = (target: ReplyTarget | null): ReplyTarget => {
        if (!target || (ownerId !== undefined && ((target.ownerId !== ownerId && !target.member) || target.deleted))) throw new AppError("not_found:question", `No question with id ${quoteId(id)}.`);
        return target;
      };
      /** What this answer closes the question with, or why it comes too late. */
      const judged = (target: ReplyTarget): { closing: Closing; status: "answered" | "declined" } | { late: ReplyReceipt } => {
        limit(target.policy);
        const { question } = target;
        if (question.status !== "pending" || (digest !== null && digest !== question.targetDigest)) return { late: lateReceipt(question) };
        const { status, answer, feedback } = decide(question, target.policy);
        return { closing: closing(status, by, answer, feedback), status };
      };
      type Won = { question: Question; receipt: ReplyReceipt; also: AlsoChanged };

      const claimed = metrics.time("reply.claim");
      // Read the target, decide, claim and record the receipt in one transaction (on SQLite it joins the grouped commit).
      const won = await db.exec.transaction(async (tx): Promise<Won | { late: ReplyReceipt }> => {
        const target = visible(await store.target(id, tx, ownerId ?? null));
        const verdict = judged(target);
        const late = async (late: ReplyReceipt) => {
          // Only a caller's own commandId can ask for a late receipt again: without one there is nothing to keep.
          if (commandId !== undefined) await record(tx, late);
          return { late };
        };
        if ("late" in verdict) return late(verdict.late);
        const question = closedAs(target.question, verdict.closing);
        // Another settler's claim committed after our read (PostgreSQL reads what is committed; SQLite's write lock excludes it).
        if (!(await store.claim(id, verdict.closing, tx))) return late(lateReceipt((await store.target(id, tx))!.question));
        const r = receipt("applied", verdict.status, question);
        await record(tx, r);
        return { question, receipt: r, also: (await alongWith(question)?.(tx)) ?? NOTHING_ELSE };
      });
      claimed();
      if ("late" in won) return won.late;
      announce(won.question, broadcast);
      delivered();
      for (const other of won.also.closedIds) await closed(other);
      won.also.committed();
      return won.receipt;
    });
  }

  /**
   * "Allow always": the session rule and every other pending approval of the session it covers,
   * settled in the answer's transaction (nothing half-applied); returns the ids it closed.
   */
  async function allowAlways(question: Question, tx: SqlTx): Promise<AlsoChanged> {
    const rule = alwaysRule(judge, question.approval!, question.answer);
    await judge.addRule(question.sessionId, rule, "always", tx);
    const covered = coveredBy(judge, rule, await store.pendingApprovalsIn(tx, question.sessionId), question.id);
    const closedIds: string[] = [];
    for (const q of covered) if (await store.claim(q.id, closing("answered", "rule", "always", alwaysFeedback(rule)), tx)) closedIds.push(q.id);
    return { closedIds, committed: () => judge.announce(question.sessionId) };
  }

  return {
    getQuestion,

    /** The first pending question of a session, read inside a transaction. */
    firstPendingIn: (tx: SqlTx, { sessionId }: { sessionId: string }) => store.firstPendingIn(tx, sessionId),
    settle,

    /** Stores a question the run asked, with its journal entry, after the run's policy allows it. */
    async create({ id, run, seq, digest, spec, epoch }: NewQuestion): Promise<Question> {
      if (spec.prompt.length > run.policy.maxPromptChars) {
        throw new AppError("prompt_too_long", `The prompt has ${spec.prompt.length} characters; this run allows at most ${run.policy.maxPromptChars}.`);
      }
      if (spec.replySchema) checkReplySchema(spec.replySchema);
      const asked = await store.countAsked(run.id);
      if (asked >= run.policy.maxRequests) {
        throw new AppError("max_requests_exceeded", `This run may ask at most ${run.policy.maxRequests} questions; this would be question ${asked + 1}.`);
      }
      if (spec.approval && judge.offered) spec = { ...spec, approval: { ...spec.approval, always: await judge.offered(run.sessionId, spec.approval) } };
      const createdAt = now();
      // An approval a rule decides (or that nobody could answer) is stored settled: no card, no timer.
      const decided = spec.approval ? settlementAtAsk(await judge.decide(run.sessionId, spec.approval), { canAsk: run.canAsk ?? true, approval: spec.approval }) : null;
      const expiresAt = spec.timeoutMs === null || decided ? null : new Date(createdAt.getTime() + spec.timeoutMs);
      const rootRunId = run.rootRunId ?? (await store.rootRunIdOf(run.id)) ?? run.id;
      const question = await store.insert(
        {
          id,
          runId: run.id,
          rootRunId,
          sessionId: run.sessionId,
          owner: spec.owner ?? run.functionName,
          seq,
          journalDigest: digest,
          pendingId: newPendingId(),
          targetDigest: targetDigestOf(run.id, id, spec),
          spec,
          createdAt,
          expiresAt,
          closing: decided ? closing(decided.status, "rule", decided.answer, decided.feedback) : undefined,
        },
        epoch,
      );
      if (decided) announce(question);
      else {
        if (expiresAt) expireLater(id, expiresAt);
        events.emit("question.asked", question);
      }
      return question;
    },

    /**
     * Checks a reply as `reply` would, without applying it (the CLI refuses what the server would):
     * in full while the question is pending, else only the limits every reply meets.
     */
    async checkReply({ question, value }: { question: Question; value: unknown }): Promise<void> {
      const policy = await store.policyOf(question.runId);
      if (question.status === "pending") validateReply(question, policy, value);
      else checkReplyLimits(policy, value);
    },

    async reply({ id, value, commandId, digest, by, ownerId }: AnswerCommand & { value: unknown }): Promise<ReplyReceipt> {
      const payload = commandPayload("send_input", { questionId: id, value, digest });
      return personalSettle(
        "send_input",
        { id, commandId, by, payload, ownerId },
        (question, policy) => ({ status: "answered", answer: validateReply(question, policy, value), feedback: null }),
        (policy) => checkReplyLimits(policy, value),
        (question) => (question.approval && (question.answer === "always" || question.answer === "always_wider") ? (tx) => allowAlways(question, tx) : null),
      );
    },

    async reject({ id, message, commandId, digest, by, ownerId }: AnswerCommand & { message?: string | null }): Promise<ReplyReceipt> {
      const payload = commandPayload("reject_input", { questionId: id, message, digest });
      return personalSettle("reject_input", { id, commandId, by, payload, ownerId }, () => ({ status: "declined", answer: null, feedback: message?.trim() || null }));
    },

    /** Ends every pending question of a run (stop, run end, lost worker). Returns the ones this call ended. */
    async closeForRun({ runId, status, by, feedback = null }: { runId: string; status: "cancelled" | "expired"; by: Closer; feedback?: string | null }): Promise<Question[]> {
      const ended = await Promise.all((await store.pendingIdsOf(runId)).map((id) => settle(id, { status, by, feedback })));
      return ended.filter((q): q is Question => q !== null);
    },

    listPending: store.listPending,
    countPending: store.countPending,
    listOfRun: store.listOfRun,

    async findByPendingId({ runId, pendingId }: { runId: string; pendingId: string }): Promise<Question> {
      const question = await store.findByPendingId(pendingId);
      if (!question || question.runId !== runId) throw new AppError("not_found:question", `Run ${quoteId(runId)} has no question with pending id ${quoteId(pendingId)}.`);
      return question;
    },

    /** A question asked on another node expires at this time (this node owns the timers). */
    expireAt(id: string, expiresAt: Date): void {
      if (timerOwner.owns()) scheduleExpiry(id, expiresAt);
    },
    /** This node no longer owns the expiry timers. */
    dropTimers: clearTimers,
    /**
     * At start-up (and on the node that owns the timers, in rounds): expiry is the server's job, so
     * rebuild a timer for every pending question that expires (before `before`, when given).
     */
    async rescheduleExpiries(before?: Date): Promise<void> {
      if (!timerOwner.owns()) return;
      for (const { id, expiresAt } of await store.listExpiring(before)) if (!timers.has(id)) scheduleExpiry(id, expiresAt);
    },

    dispose: clearTimers,
  };
}

export type QuestionService = ReturnType<typeof createQuestionService>;
