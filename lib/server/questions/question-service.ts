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
import { grantEnd } from "../permissions/grant-end";
import { checkEdit, editOffered, noEditedCalls, type EditedCallReader } from "./approval-edit";
import { alwaysFeedback, alwaysRule, coveredBy, defaultJudge, settlementAtAsk, type ApprovalJudge } from "./approvals";
import { closedAs, createQuestionStore, type Closing, type ReplyTarget } from "../store/questions/question-store";
import { checkReplySchema } from "./reply-schema";
import type { HeldEpoch } from "../cluster/lease-fence";
import { checkReplyLimits, validateReply } from "./validate-reply";
import { log } from "../log";
import { LOCAL_OWNER } from "../../protocol/access";
import { mayAnswer, peopleNamed, waitingFor } from "../../protocol/teams";
import { createMemberStore } from "../store/members/member-store";
import { checkPeopleNamed } from "./people-named";
import type { SqlTx } from "../store/sql-executor";

/** The claim of a question read pending while held cannot lose (personalSettle reads it so): one that did is a fault, not a late reply. */
function claimedHeld(won: boolean): void {
  if (!won) throw new Error("The claim of a held pending question changed nothing.");
}

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
  /** Reads an approval's call again with an edited input ("Edit and allow"); none: no approval is edited. */
  editedCalls?: EditedCallReader;
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

/**
 * Who answers which question (a reply or a decline): `person` sees only the questions of sessions
 * they own or are a member of (an administrator sees all) and may answer only as its answerers
 * allow; `digest` guards against a changed question. Without `person` the server itself answers.
 */
interface AnswerCommand {
  id: string;
  commandId?: string;
  digest?: string | null;
  by: Closer;
  person?: string;
  admin?: boolean;
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
  /** Written in the question's transaction when it is stored pending (not settled at once by a rule). */
  whilePending?: (tx: SqlTx) => Promise<void>;
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
  editedCalls = noEditedCalls,
}: QuestionServiceDeps) {
  const store = createQuestionStore(db);
  const members = createMemberStore(db.exec);
  const timers = new Map<string, NodeJS.Timeout>();
  const escalations = new Map<string, NodeJS.Timeout>();

  function clearTimer(id: string) {
    for (const map of [timers, escalations]) {
      const timer = map.get(id);
      if (timer) clearTimeout(timer);
      map.delete(id);
    }
  }

  function clearTimers(): void {
    for (const map of [timers, escalations]) {
      for (const timer of map.values()) clearTimeout(timer);
      map.clear();
    }
  }

  /** A timer for `at` (re-armed past the longest setTimeout), kept in `map` under the question's id. */
  function timerAt(map: Map<string, NodeJS.Timeout>, id: string, at: Date, fire: () => Promise<unknown>, what: string): void {
    const old = map.get(id);
    if (old) clearTimeout(old);
    const delay = Math.max(0, at.getTime() - now().getTime());
    const timer = setTimeout(
      () => {
        map.delete(id);
        if (delay > MAX_TIMER_MS) return timerAt(map, id, at, fire, what);
        void fire().catch((err) => log.error({ questionId: id, err }, `[questions] could not ${what} ${id}`));
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    timer.unref();
    map.set(id, timer);
  }

  function expireLater(id: string, expiresAt: Date) {
    if (timerOwner.owns()) scheduleExpiry(id, expiresAt);
    else timerOwner.handOff(id, expiresAt);
  }

  function scheduleExpiry(id: string, expiresAt: Date) {
    timerAt(timers, id, expiresAt, () => settle(id, { status: "timed_out", by: "timeout" }), "time out");
  }

  function scheduleEscalation(id: string, at: Date) {
    timerAt(escalations, id, at, () => escalate(id), "escalate");
  }

  /**
   * The next escalation step of a question nobody allowed has answered: its people may answer from
   * now on and are told. One conditional update, so a step is taken once whichever node's timer
   * fires; a step overdue after a restart is taken at once, and the next one scheduled.
   */
  async function escalate(id: string): Promise<Question | null> {
    const question = await store.find(id);
    if (!question || question.status !== "pending" || question.escalated >= question.escalate.length) return null;
    const step = question.escalate[question.escalated]!;
    const next = question.escalate[question.escalated + 1];
    const nextAt = next ? new Date(Date.parse(question.createdAt) + next.afterMs) : null;
    if (!(await store.escalate(id, question.escalated, nextAt))) return null;
    const escalated: Question = { ...question, escalated: question.escalated + 1 };
    events.emit("question.updated", escalated);
    events.emit("question.escalated", escalated, step.to);
    if (nextAt && timerOwner.owns()) scheduleEscalation(id, nextAt);
    return escalated;
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

  /**
   * A question just closed: its timer goes, its run is handed the settlement, then every tab hears
   * it. The tabs' retraction is written in this turn, before the worker can answer: the run's next
   * line reaches them after it, while its worker starts on the answer as the retraction is written.
   */
  function announce(question: Question, broadcast?: () => void): void {
    clearTimer(question.id);
    try {
      deliver(question);
    } finally {
      events.emit("question.closed", question);
      broadcast?.();
    }
  }

  type Kind = ReplyReceipt["kind"];

  /**
   * Replies and declines: idempotent by commandId, guarded by the digest, claim-once. `limit`
   * checks what applies whatever the outcome (a reply's size and depth under the run's policy)
   * before anything is stored, so a late or stale reply cannot store more than a winning one.
   * Given `ownerId`, a question of another owner (or of a session being deleted) is not found.
   *
   * The whole of it (read the target, decide, claim, record the receipt, and what `alongWith`
   * changes: "Allow always") is one transaction; the answer is handed to the run as the retraction
   * is broadcast (announce).
   */
  function personalSettle(
    kind: Kind,
    { id, commandId, by, payload, person, admin = false }: Omit<AnswerCommand, "digest"> & { payload: { digest: string | null } },
    decide: (
      question: Question,
      policy: RunPolicy,
      tx: SqlTx,
    ) => Promise<{ status: "answered" | "declined"; answer: JsonValue | null; feedback: string | null; editedInput?: Record<string, unknown> | null }>,
    limit: (policy: RunPolicy) => void = () => {},
    /** More the same answer changes, in its transaction (an "Allow always" rule and the approvals it covers), or null when it changes nothing else. */
    alongWith: (question: Question) => ((tx: SqlTx) => Promise<AlsoChanged>) | null = () => null,
  ): Promise<ReplyReceipt> {
    const { digest } = payload;
    const broadcast = metrics.time("reply.broadcast");
    const delivered = metrics.time("reply.deliver");
    return commands.run<ReplyReceipt>({ commandId, kind, payload }, async ({ commandId: cid, record, claimsQueued }) => {
      const receipt = (apply_state: ReplyReceipt["apply_state"], outcome: ReplyReceipt["outcome"], question: Question) =>
        buildReceipt<ReplyReceipt>({ commandId: cid, kind, apply_state, outcome, question });
      const lateReceipt = (question: Question): ReplyReceipt => {
        const outcome = question.status === "pending" ? "stale_target" : question.status === "answered" || question.status === "declined" ? "already_answered" : "already_closed";
        return receipt("target_closed", outcome, question);
      };
      const visible = (target: ReplyTarget | null): ReplyTarget => {
        const sees = (t: ReplyTarget) => !t.deleted && (admin || t.ownerId === person || t.member);
        if (!target || (person !== undefined && !sees(target))) throw new AppError("not_found:question", `No question with id ${quoteId(id)}.`);
        if (person !== undefined && !mayAnswer(target.question, person)) {
          const names = waitingFor(target.question) ?? [];
          throw new AppError("not_an_answerer", `Only ${names.join(" or ") || "the people it names"} may answer this question; it waits for them.`);
        }
        return target;
      };
      /** What this answer closes the question with, or why it comes too late. */
      const judged = async (target: ReplyTarget, tx: SqlTx): Promise<{ closing: Closing; status: "answered" | "declined" } | { late: ReplyReceipt }> => {
        limit(target.policy);
        const { question } = target;
        if (question.status !== "pending" || (digest !== null && digest !== question.targetDigest)) return { late: lateReceipt(question) };
        const { status, answer, feedback, editedInput = null } = await decide(question, target.policy, tx);
        return { closing: { ...closing(status, by, answer, feedback), closedByUser: person ?? null, editedInput }, status };
      };
      type Won = { question: Question; receipt: ReplyReceipt; also: AlsoChanged };

      /**
       * A vote on an approval that needs several people: the question is held first, so concurrent
       * voters count one after another and exactly one of them, the one whose vote makes the count,
       * settles it. A person counts once, whichever tab or surface they vote from.
       */
      const voted = async (tx: SqlTx, target: ReplyTarget, verdict: { closing: Closing; status: "answered" | "declined" }): Promise<Won | ReplyReceipt> => {
        const approvals = target.question.approvals!;
        if (verdict.status === "answered" && verdict.closing.answer !== "once") {
          throw new AppError("invalid_answer", `This approval needs ${approvals.required} people: it can only be allowed once, not always.`);
        }
        const votes = await store.vote(tx, {
          questionId: id,
          userId: person ?? LOCAL_OWNER,
          decision: verdict.status === "answered" ? "allow" : "reject",
          feedback: verdict.closing.feedback,
          surface: by,
          // Once held: when it counted, not when it came.
          createdAt: now(),
        });
        const count = (decision: "allow" | "reject") => votes.filter((v) => v.decision === decision).length;
        const decides = verdict.status === "answered" ? count("allow") >= approvals.required : count("reject") >= approvals.rejections;
        const mine = votes.find((v) => v.user === (person ?? LOCAL_OWNER))!;
        // The person's first vote stands: a second one that differs decides nothing.
        if (!decides || mine.decision !== (verdict.status === "answered" ? "allow" : "reject")) {
          return receipt("applied", "voted", { ...target.question, votes });
        }
        // Closed when the vote that decides counted (it is this one: a vote that adds nothing decides nothing).
        const settling = { ...verdict.closing, closedAt: new Date(mine.at) };
        claimedHeld(await store.claim(id, settling, tx));
        const question = { ...closedAs(target.question, settling), votes };
        return { question, receipt: receipt("applied", verdict.status, question), also: NOTHING_ELSE };
      };

      const claimed = metrics.time("reply.claim");
      // Read the target held, decide, claim and record the receipt in one transaction (on SQLite it joins the grouped commit).
      const won = await db.exec.transaction(async (tx): Promise<Won | { late: ReplyReceipt } | { vote: ReplyReceipt }> => {
        // Read held (on PostgreSQL one round trip with BEGIN): another settler's claim waits for this transaction, or
        // this one reads the question as that claim left it; so the claim of a question read pending cannot lose.
        const target = visible(await store.heldTarget(tx, id, person ?? LOCAL_OWNER));
        const verdict = await judged(target, tx);
        const late = async (late: ReplyReceipt) => {
          // Only a caller's own commandId can ask for a late receipt again: without one there is nothing to keep.
          if (commandId !== undefined) await record(tx, late);
          return { late };
        };
        if ("late" in verdict) return late(verdict.late);
        if (target.question.approvals) {
          const result = await voted(tx, target, verdict);
          if ("kind" in result) {
            await record(tx, result);
            return { vote: result };
          }
          await record(tx, result.receipt);
          return result;
        }
        const question = closedAs(target.question, verdict.closing);
        const r = receipt("applied", verdict.status, question);
        const also = alongWith(question);
        const claimAndRecord = () => Promise.all([store.claim(id, verdict.closing, tx), record(tx, r)]);
        // Claimed and recorded together; with nothing else to change, and a receipt that can only fail as an error
        // (not a queued command's claim), on PostgreSQL the COMMIT leaves with them.
        const [won] = await (also || claimsQueued ? claimAndRecord() : tx.commitWith(claimAndRecord));
        claimedHeld(won);
        return { question, receipt: r, also: (await also?.(tx)) ?? NOTHING_ELSE };
      });
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

  /**
   * "Allow always": the session rule and every other pending approval of the session it covers,
   * settled in the answer's transaction (nothing half-applied); returns the ids it closed.
   */
  async function allowAlways(question: Question, until: Date | null, tx: SqlTx): Promise<AlsoChanged> {
    const rule = alwaysRule(judge, question.approval!, question.answer);
    const added = await judge.addRule(question.sessionId, rule, "always", tx, { by: question.closedByUser, until });
    const covered = coveredBy(judge, rule, await store.pendingApprovalsIn(tx, question.sessionId), question.id);
    const closedIds: string[] = [];
    const byRule = { ...closing("answered", "rule", "always", alwaysFeedback(rule)), closedByRule: added.id };
    // An approval that needs several people is not the person's alone to allow: a rule one of them made leaves it to their votes.
    for (const q of covered) if (!q.approvals && (await store.claim(q.id, byRule, tx))) closedIds.push(q.id);
    return { closedIds, committed: () => judge.announce(question.sessionId) };
  }

  return {
    getQuestion,

    /** The first pending question of a session, read inside a transaction. */
    firstPendingIn: (tx: SqlTx, { sessionId }: { sessionId: string }) => store.firstPendingIn(tx, sessionId),
    settle,

    /** Stores a question the run asked, with its journal entry, after the run's policy allows it. */
    async create({ id, run, seq, digest, spec, epoch, whilePending }: NewQuestion): Promise<Question> {
      if (spec.prompt.length > run.policy.maxPromptChars) {
        throw new AppError("prompt_too_long", `The prompt has ${spec.prompt.length} characters; this run allows at most ${run.policy.maxPromptChars}.`);
      }
      if (spec.replySchema) checkReplySchema(spec.replySchema);
      await checkPeopleNamed(members, run.sessionId, peopleNamed(spec));
      if (spec.approval) spec = { ...spec, approval: { ...spec.approval, edit: editOffered(spec.approval) } };
      if (spec.approval && judge.offered) spec = { ...spec, approval: { ...spec.approval, always: await judge.offered(run.sessionId, spec.approval) } };
      if (spec.approval?.preview.type === "command") {
        // The server names the chain; whatever a worker sent in its place is dropped.
        const { chain: _sent, ...preview } = spec.approval.preview;
        const chain = judge.chain ? await judge.chain(run.sessionId, spec.approval) : [];
        spec = { ...spec, approval: { ...spec.approval, preview: chain.length > 0 ? { ...preview, chain } : preview } };
      }
      const createdAt = now();
      // An approval a rule decides (or that nobody could answer) is stored settled: no card, no timer.
      const ruled = spec.approval ? settlementAtAsk(await judge.decide(run.sessionId, spec.approval), { canAsk: run.canAsk ?? true, approval: spec.approval }) : null;
      // An approval that needs several people is theirs to allow, never a rule's; a deny rule still denies it.
      const decided = spec.approvals && ruled?.status === "answered" ? null : ruled;
      const expiresAt = spec.timeoutMs === null || decided ? null : new Date(createdAt.getTime() + spec.timeoutMs);
      const question = await store.insert(
        {
          id,
          runId: run.id,
          rootRunId: run.rootRunId ?? null,
          sessionId: run.sessionId,
          owner: spec.owner ?? run.functionName,
          seq,
          journalDigest: digest,
          pendingId: newPendingId(),
          targetDigest: targetDigestOf(run.id, id, spec),
          spec,
          createdAt,
          expiresAt,
          closing: decided ? { ...closing(decided.status, "rule", decided.answer, decided.feedback), closedByRule: decided.ruleId } : undefined,
        },
        epoch,
        // Counted in the question's own transaction (a run's questions are stored one at a time, by its supervisor).
        (asked) => {
          if (asked >= run.policy.maxRequests) {
            throw new AppError("max_requests_exceeded", `This run may ask at most ${run.policy.maxRequests} questions; this would be question ${asked + 1}.`);
          }
        },
        decided ? undefined : whilePending,
      );
      if (decided) announce(question);
      else {
        if (expiresAt) expireLater(id, expiresAt);
        // Another node's timers take it up in their next round.
        const escalateAt = spec.escalate ? new Date(createdAt.getTime() + spec.escalate[0]!.afterMs) : null;
        if (escalateAt && timerOwner.owns()) scheduleEscalation(id, escalateAt);
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

    async reply({ id, value, input, until, commandId, digest, by, person, admin }: AnswerCommand & { value: unknown; input?: Record<string, unknown>; until?: string }): Promise<ReplyReceipt> {
      const payload = commandPayload("send_input", { questionId: id, value, input, until, digest });
      let ends: Date | null = null;
      return personalSettle(
        "send_input",
        { id, commandId, by, payload, person, admin },
        async (question, policy, tx) => {
          const answer = validateReply(question, policy, value);
          if (payload.until !== undefined) {
            if (answer !== "always" && answer !== "always_wider") throw new AppError("invalid_answer", 'until is for "Allow always": how long the rule it adds lasts.');
            ends = grantEnd(payload.until, { code: "invalid_answer" });
          }
          const editedInput = payload.input ? await checkEdit({ judge, read: editedCalls }, { question, answer, input: payload.input, tx }) : null;
          return { status: "answered", answer, feedback: null, editedInput };
        },
        (policy) => checkReplyLimits(policy, value),
        (question) => (question.approval && (question.answer === "always" || question.answer === "always_wider") ? (tx) => allowAlways(question, ends, tx) : null),
      );
    },

    async reject({ id, message, commandId, digest, by, person, admin }: AnswerCommand & { message?: string | null }): Promise<ReplyReceipt> {
      const payload = commandPayload("reject_input", { questionId: id, message, digest });
      return personalSettle("reject_input", { id, commandId, by, payload, person, admin }, async () => ({ status: "declined", answer: null, feedback: message?.trim() || null }));
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
      for (const { id, escalateAt } of await store.listEscalating(before)) if (!escalations.has(id)) scheduleEscalation(id, escalateAt);
    },
    escalate,

    dispose: clearTimers,
  };
}

export type QuestionService = ReturnType<typeof createQuestionService>;
