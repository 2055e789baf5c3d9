import { describeRule } from "../../protocol/audit";
import { AppError } from "../../protocol/errors";
import {
  APPROVAL_ANSWERS,
  ApprovalAnswerSchema,
  type AlwaysOption,
  type ApprovalAnswer,
  type ApprovalSpec,
  type PermissionDecision,
  type PermissionRule,
  type PermissionRuleInput,
} from "../../protocol/permissions";
import type { JsonValue, Question, QuestionOutcome } from "../../protocol/question";
import type { SqlTx } from "../store/sql-executor";

/** Who grants a rule, and until when (null: for good). */
export interface RuleGrant {
  by?: string | null;
  until?: Date | null;
}

/**
 * What the question registry needs of the permission rules: a decision before anyone is asked,
 * and for "Allow always" a session rule added inside the answer's own transaction.
 */
export interface ApprovalJudge {
  /** What the rules (builtin, project, the session's) say about an approval's tool call: deny beats ask beats allow; none → `ask` for a dangerous tool, else `allow`. */
  decide(sessionId: string, approval: ApprovalSpec, tx?: SqlTx): Promise<{ decision: PermissionDecision; rule: PermissionRule | null }>;
  /** Adds a session rule at the end, in `tx` when given; an equal rule already there moves to the end. 400 for an invalid pattern. Call `announce` after the commit. */
  addRule(sessionId: string, rule: PermissionRuleInput, source: "always" | "manual", tx?: SqlTx, grant?: RuleGrant): Promise<PermissionRule>;
  /** Whether a rule matches this approval's call (the same tool, its folder, a matching pattern): an "Allow always" rule must cover the call approved. */
  covers(rule: PermissionRuleInput, approval: ApprovalSpec): boolean;
  /**
   * The "Allow always" options the card offers (absent: all of them): none when the first does not
   * allow the call itself (exactly this call is always first), and a wider one only when it allows
   * the call and no deny or ask rule would stop every call it allows.
   */
  offered?(sessionId: string, approval: ApprovalSpec, tx?: SqlTx): Promise<ApprovalSpec["always"]>;
  /**
   * For a command that runs the workspace's code (a test runner, a build): the allow rules that let
   * the agent change the workspace without asking, named (describeRule), for its card. Empty otherwise.
   */
  chain?(sessionId: string, approval: ApprovalSpec, tx?: SqlTx): Promise<string[]>;
  /** Tells tabs the session's rules changed (after the transaction has committed). */
  announce(sessionId: string): void;
}

/** Without rules: a dangerous tool needs a person, the rest may run. */
export const defaultJudge: ApprovalJudge = {
  decide: async (_sessionId, approval) => ({ decision: approval.dangerous ? "ask" : "allow", rule: null }),
  addRule: async () => {
    throw new AppError("unavailable", "Permission rules are not available here.");
  },
  covers: () => false,
  announce: () => {},
};

/**
 * How an approval is settled when it is asked (its denials worded with SERVER_DENIAL_PREFIXES), or null when a person must answer: a rule's
 * allow or deny, or a run that nobody can answer.
 */
export function settlementAtAsk(
  { decision, rule }: { decision: PermissionDecision; rule: PermissionRule | null },
  { canAsk, approval }: { canAsk: boolean; approval: ApprovalSpec },
): { status: QuestionOutcome; answer: JsonValue | null; feedback: string; ruleId: string | null } | null {
  const ruleId = rule?.id ?? null;
  if (decision === "allow") {
    return { status: "answered", answer: "once", feedback: rule ? `Allowed by the rule "${describeRule(rule)}".` : `Allowed: ${approval.tool} is not a dangerous tool.`, ruleId };
  }
  if (decision === "deny") {
    return { status: "declined", answer: null, feedback: `Denied by the rule "${describeRule(rule ?? { tool: approval.tool, pattern: "*" })}".`, ruleId };
  }
  if (!canAsk) return { status: "declined", answer: null, ruleId: null, feedback: `Nobody can approve ${approval.tool} in this run (it runs without a person to ask), so it was denied.` };
  return null;
}

/** An approval's answer: "once", "always" or "always_wider" (a rejection goes through reject). */
export function approvalAnswer(value: unknown): ApprovalAnswer {
  const parsed = ApprovalAnswerSchema.safeParse(value);
  if (!parsed.success) {
    throw new AppError("invalid_answer", `An approval is answered with ${APPROVAL_ANSWERS.map((a) => `"${a}"`).join(" or ")}; reject it (with optional feedback) to deny it.`, {
      details: { allowed: [...APPROVAL_ANSWERS, "reject"] },
    });
  }
  return parsed.data;
}

/** Which of the approval's `always` options an answer picks: `always` the first, `always_wider` the second; null for "once". */
export function alwaysOption(approval: ApprovalSpec, answer: unknown): AlwaysOption | null {
  if (answer !== "always" && answer !== "always_wider") return null;
  const option = approval.always[answer === "always" ? 0 : 1];
  if (option) return option;
  const message =
    answer === "always" ? 'This approval offers no "Allow always": allow it once or reject it.' : "This approval offers no wider rule: allow it once, always (exactly this call) or reject it.";
  throw new AppError("invalid_answer", message, { details: { allowed: approval.always.length === 0 ? ["once", "reject"] : ["once", "always", "reject"] } });
}

/**
 * The session rule an "Allow always" (or "always_wider") answer adds for this approval: exactly
 * the option the card offered. One that would not allow the very call approved (a function
 * offering something else than it says) is refused rather than stored.
 */
export function alwaysRule(judge: ApprovalJudge, approval: ApprovalSpec, answer: unknown): PermissionRuleInput {
  const option = alwaysOption(approval, answer);
  if (!option) throw new AppError("invalid_answer", 'Only an "Allow always" answer adds a rule.');
  const rule: PermissionRuleInput = { tool: approval.tool, pattern: option.pattern, decision: "allow", ...(option.cwd !== null ? { cwd: option.cwd } : {}) };
  if (!judge.covers(rule, approval)) {
    throw new AppError("invalid_answer", `The rule "${describeRule(rule)}" this approval offers does not allow the call it asks about, so it is not added: allow it once or reject it.`, {
      details: { allowed: ["once", "reject"] },
    });
  }
  return rule;
}

/** Of a session's pending approvals, those the new rule covers (the answered one excluded). */
export function coveredBy(judge: ApprovalJudge, rule: PermissionRuleInput, pending: Question[], except: string): Question[] {
  return pending.filter((q) => q.id !== except && q.kind === "approval" && q.approval !== null && judge.covers(rule, q.approval));
}

export const alwaysFeedback = (rule: PermissionRuleInput) => `Allowed by "Allow always" (${describeRule(rule)}).`;
