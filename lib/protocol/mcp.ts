import { z } from "zod";
import { ApprovalAskFieldsSchema, AskFieldsSchema, IdempotencyKeySchema, checkAsk } from "./asks";
import type { Question } from "./question";
import { ApprovalsInputSchema, AudienceFieldsSchema } from "./teams";

/**
 * Parley's MCP server (`/mcp`, Streamable HTTP, `Authorization: Bearer <API token>`): the tools
 * an agent outside Parley asks a person with. Each call is an ordinary Parley question (the ask
 * API's run of `ask` or `approval`); these schemas are the tools' contracts.
 */
export const MCP_PATH = "/mcp";
export const MCP_TOOLS = { ask: "ask_user", approval: "request_approval", permission: "permission_prompt" } as const;

/** How often a waiting tool call tells the client it is alive (with a progress token): well inside the SDK's 60 s request timeout. */
export const MCP_PROGRESS_EVERY_MS = 10_000;

const SessionField = z.string().trim().min(1).max(200).describe("A Parley chat (its id or title) to ask in; by default, the chat named after this client.");
const KeyField = IdempotencyKeySchema.describe("Your key for this ask: calling again with the same key never asks twice; it waits on the same question or returns how it ended.");

export const AskUserArgsObject = AskFieldsSchema.omit({ kind: true, from: true, session: true, callbackUrl: true }).extend({ session: SessionField.optional(), idempotency_key: KeyField.optional() });
/** `ask_user`'s arguments, checked as the ask API checks an ask (a form asks nothing else …). */
export const AskUserArgsSchema = AskUserArgsObject.superRefine(checkAsk);
export type AskUserArgs = z.infer<typeof AskUserArgsSchema>;

export const AskOutcomeSchema = z.enum(["answered", "declined", "timed_out", "cancelled"]);
export type AskOutcome = z.infer<typeof AskOutcomeSchema>;

export const AskUserResultSchema = z.object({
  outcome: AskOutcomeSchema,
  /** The answer (a timeout's default, when the ask gave one). */
  value: z.json().optional(),
  /** What the person wrote when declining, or why the question was withdrawn. */
  feedback: z.string().optional(),
});
export type AskUserResult = z.infer<typeof AskUserResultSchema>;

export const RequestApprovalArgsSchema = ApprovalAskFieldsSchema.extend({
  session: SessionField.optional(),
  idempotency_key: KeyField.optional(),
  ...AudienceFieldsSchema.shape,
  approvals: ApprovalsInputSchema.optional().describe("An approval that needs several people: { required: 2, from: [names] } (rejected at the first rejection unless rejections says more)."),
});
export type RequestApprovalArgs = z.infer<typeof RequestApprovalArgsSchema>;

export const ApprovalDecisionSchema = z.enum(["once", "always", "reject"]);
export const RequestApprovalResultSchema = z.object({
  outcome: AskOutcomeSchema,
  decision: ApprovalDecisionSchema,
  feedback: z.string().optional(),
  /** The person edited the call before allowing it (an approval asked with `input_schema`): run this input, not yours. */
  input: z.record(z.string(), z.unknown()).optional(),
});
export type RequestApprovalResult = z.infer<typeof RequestApprovalResultSchema>;

/** Claude Code's `--permission-prompt-tool` input: the tool it is about to use, and the call's id (the idempotency key). */
export const PermissionPromptArgsSchema = ApprovalAskFieldsSchema.pick({ tool_name: true, input: true }).extend({ tool_use_id: IdempotencyKeySchema.optional() });
export type PermissionPromptArgs = z.infer<typeof PermissionPromptArgsSchema>;

/** What Claude Code reads from the permission prompt's text block. */
export type PermissionPromptResult = { behavior: "allow"; updatedInput: Record<string, unknown> } | { behavior: "deny"; message: string };

const outcomeOf = (question: Question): AskOutcome => (question.status === "answered" || question.status === "declined" || question.status === "timed_out" ? question.status : "cancelled");

/** How an ask ended, for its asker (the question must be settled). */
export function askResultOf(question: Question): AskUserResult {
  const outcome = outcomeOf(question);
  // A timeout takes the ask's default, when it gave one.
  const value = outcome === "answered" ? question.answer : outcome === "timed_out" ? (question.answer ?? question.default) : null;
  return {
    outcome,
    ...(value !== null ? { value } : {}),
    ...(question.feedback ? { feedback: question.feedback } : {}),
  };
}

/** `ask_user`'s text: the answer itself when there is one, else what happened. */
export function askResultText(result: AskUserResult): string {
  const value = result.value === undefined ? undefined : typeof result.value === "string" ? result.value : JSON.stringify(result.value);
  const wrote = result.feedback ? ` ${result.feedback}` : "";
  switch (result.outcome) {
    case "answered":
      return value ?? "";
    case "declined":
      return `The person declined to answer.${wrote}`;
    case "timed_out":
      return value === undefined ? "Nobody answered in time." : `Nobody answered in time; the default was taken: ${value}`;
    case "cancelled":
      return `The question was withdrawn.${wrote}`;
  }
}

/** How an approval ended: allowed once or always, or rejected (declined, denied by a rule, unanswered in time, withdrawn). */
export function approvalResultOf(question: Question): RequestApprovalResult {
  const outcome = outcomeOf(question);
  const decision = outcome !== "answered" ? "reject" : question.answer === "always" || question.answer === "always_wider" ? "always" : "once";
  const edited = decision === "once" ? question.editedInput : null;
  return { outcome, decision, ...(question.feedback ? { feedback: question.feedback } : {}), ...(edited ? { input: edited } : {}) };
}

export function approvalResultText(result: RequestApprovalResult): string {
  if (result.decision === "reject") return `Rejected${result.outcome === "declined" ? "" : ` (${result.outcome.replace("_", " ")})`}.${result.feedback ? ` ${result.feedback}` : ""}`;
  const edited = result.input ? ` The person edited the call: run it with this input instead: ${JSON.stringify(result.input)}` : "";
  return `Allowed ${result.decision === "always" ? "always (later calls like it are allowed without asking)" : "once"}.${result.feedback ? ` ${result.feedback}` : ""}${edited}`;
}

/** The permission prompt's answer: allowed with the input (as the person edited it, when they did), or denied with why. */
export function permissionPromptResultOf(result: RequestApprovalResult, input: Record<string, unknown>): PermissionPromptResult {
  if (result.decision !== "reject") return { behavior: "allow", updatedInput: result.input ?? input };
  return { behavior: "deny", message: approvalResultText(result) };
}
