import { createHash, randomBytes } from "node:crypto";
import { AppError } from "../../protocol/errors";
import type { RunPolicy } from "../../protocol/policy";
import { canonicalJson } from "../../protocol/plain-json";
import type { Question, QuestionSpec } from "../../protocol/question";
import { peopleNamed } from "../../protocol/teams";
import type { DomainEvents } from "../events";
import type { HeldEpoch } from "../cluster/lease-fence";
import type { MemberStore } from "../store/members/member-store";
import type { QuestionStore } from "../store/questions/question-store";
import type { SqlTx } from "../store/sql-executor";
import { editOffered } from "./approval-edit";
import { settlementAtAsk, type ApprovalJudge } from "./approvals";
import { checkPeopleNamed } from "./people-named";
import type { QuestionTimers } from "./question-timers";
import { checkReplySchema } from "./reply-schema";
import type { QuestionSettlement } from "./settle";

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

/** What a question the run asks is stored with. */
export interface NewQuestion {
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

/** Asking: a question the run asks, checked against its policy and stored (pending, or settled at once by a rule). */
export interface Asking {
  /** Stores a question the run asked, with its journal entry, after the run's policy allows it. */
  create(question: NewQuestion): Promise<Question>;
}

export interface AskingDeps {
  store: Pick<QuestionStore, "insert">;
  members: Pick<MemberStore, "people">;
  judge: ApprovalJudge;
  events: DomainEvents;
  now: () => Date;
  timers: Pick<QuestionTimers, "expireLater" | "escalateAt">;
  settlement: Pick<QuestionSettlement, "announce" | "closing">;
}

export function targetDigestOf(runId: string, questionId: string, spec: Pick<QuestionSpec, "kind" | "prompt" | "options" | "multi" | "allowCustom" | "replySchema">): string {
  const target = { runId, questionId, kind: spec.kind, prompt: spec.prompt, options: spec.options, multi: spec.multi, allowCustom: spec.allowCustom, replySchema: spec.replySchema };
  return createHash("sha256").update(canonicalJson(target)).digest("hex");
}

const newPendingId = () => `p_${randomBytes(6).toString("hex")}`;

/** The approval as the server offers it: what may be edited, allowed always, and the command chain it names. */
async function offered(judge: ApprovalJudge, sessionId: string, spec: QuestionSpec): Promise<QuestionSpec> {
  if (spec.approval) spec = { ...spec, approval: { ...spec.approval, edit: editOffered(spec.approval) } };
  if (spec.approval && judge.offered) spec = { ...spec, approval: { ...spec.approval, always: await judge.offered(sessionId, spec.approval) } };
  if (spec.approval?.preview.type === "command") {
    // The server names the chain; whatever a worker sent in its place is dropped.
    const { chain: _sent, ...preview } = spec.approval.preview;
    const chain = judge.chain ? await judge.chain(sessionId, spec.approval) : [];
    spec = { ...spec, approval: { ...spec.approval, preview: chain.length > 0 ? { ...preview, chain } : preview } };
  }
  return spec;
}

export function createAsking({ store, members, judge, events, now, timers, settlement }: AskingDeps): Asking {
  return {
    async create({ id, run, seq, digest, spec, epoch, whilePending }) {
      if (spec.prompt.length > run.policy.maxPromptChars) {
        throw new AppError("prompt_too_long", `The prompt has ${spec.prompt.length} characters; this run allows at most ${run.policy.maxPromptChars}.`);
      }
      if (spec.replySchema) checkReplySchema(spec.replySchema);
      await checkPeopleNamed(members, run.sessionId, peopleNamed(spec));
      spec = await offered(judge, run.sessionId, spec);
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
          closing: decided ? { ...settlement.closing(decided.status, "rule", decided.answer, decided.feedback), closedByRule: decided.ruleId } : undefined,
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
      if (decided) settlement.announce(question);
      else {
        if (expiresAt) timers.expireLater(id, expiresAt);
        // Another node's timers take it up in their next round.
        if (spec.escalate) timers.escalateAt(id, new Date(createdAt.getTime() + spec.escalate[0]!.afterMs));
        events.emit("question.asked", question);
      }
      return question;
    },
  };
}
