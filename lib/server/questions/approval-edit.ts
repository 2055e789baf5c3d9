import { editedPathProblem, pathKeysOf } from "../../permissions/edited-paths";
import { describeRule } from "../../protocol/audit";
import { AppError } from "../../protocol/errors";
import type { ApprovalSpec } from "../../protocol/permissions";
import { canonicalJson } from "../../protocol/plain-json";
import type { Question } from "../../protocol/question";
import type { SqlTx } from "../store/sql-executor";
import type { ApprovalJudge } from "./approvals";
import { checkReplySchema, validateAgainstSchema } from "./reply-schema";

/** An edited call as the permission rules read it. */
export interface EditedCall {
  /** The input the tool will get (its schema's normalised form). */
  input: Record<string, unknown>;
  subject: string;
  cwd: string | null;
}

/**
 * Reads an edited call of an approval's tool again, as the worker will (workers/tools/edited-call.ts):
 * its checked input, its subject and folder. Throws `invalid_edit` when the tool refuses the input.
 */
export type EditedCallReader = (approval: ApprovalSpec, input: Record<string, unknown>) => EditedCall;

/** Without the tools' definitions nothing can be read again: no approval is edited. */
export const noEditedCalls: EditedCallReader = () => {
  throw new AppError("invalid_edit", "This server cannot check an edited call: allow it as it is or reject it.");
};

/**
 * What an approval offers to edit, as stored: its edit as the worker sent it, or none when the
 * tool's JSON Schema is one the server does not check (a tool from outside with keywords it does
 * not support): such a call is still asked, only as it is.
 */
export function editOffered(approval: ApprovalSpec): ApprovalSpec["edit"] | null {
  if (!approval.edit) return null;
  try {
    checkReplySchema(approval.edit.schema);
    return approval.edit;
  } catch {
    return null;
  }
}

/**
 * An "Edit and allow" answer: the approval's call with the input the answerer edited, checked
 * against the tool's schema and then the rules, as if the agent had asked for it. Allowed once only
 * (an "Allow always" rule is about the call the card showed), by one person (an approval that needs
 * several is each voter's to allow as shown), and never past a deny rule. Returns the input to run
 * with, or null when the edit changed nothing.
 */
export async function checkEdit(
  { judge, read }: { judge: ApprovalJudge; read: EditedCallReader },
  { question, answer, input, tx }: { question: Question; answer: unknown; input: Record<string, unknown>; tx: SqlTx },
): Promise<Record<string, unknown> | null> {
  const approval = question.kind === "approval" ? question.approval : null;
  if (!approval?.edit) throw new AppError("invalid_edit", "This question takes no edited input: answer it as it is.");
  if (question.approvals) {
    throw new AppError("invalid_edit", `This approval needs ${question.approvals.required} people, who each allow the call as shown: it cannot be edited.`);
  }
  if (answer !== "once") throw new AppError("invalid_edit", 'An edited call is allowed once: answer "once" with the edited input.');
  validateAgainstSchema(approval.edit.schema, input, { code: "invalid_edit", what: `The edited input does not fit ${approval.tool}'s input` });
  const pathProblem = editedPathProblem(input, approval.input, { keys: pathKeysOf(approval.edit.schema), roots: approval.edit.roots ?? [] });
  if (pathProblem) throw new AppError("invalid_edit", `The edited path ${pathProblem}: allow the call as it is, or edit it to a path inside.`);
  const call = read(approval, input);
  if (canonicalJson(call.input) === canonicalJson(approval.input)) return null;
  const edited: ApprovalSpec = { ...approval, input: call.input, subject: call.subject, cwd: call.cwd };
  const { decision, rule } = await judge.decide(question.sessionId, edited, tx);
  if (decision === "deny") {
    throw new AppError("edit_denied", `The rule "${describeRule(rule ?? { tool: approval.tool, pattern: "*" })}" denies the edited call (${call.subject}): allow the call as it is or reject it.`);
  }
  return call.input;
}
