import { normalizeAnswer } from "../../protocol/answer";
import { AppError } from "../../protocol/errors";
import { describeFormErrors, parseFormSchema, validateForm } from "../../protocol/forms";
import { MAX_REPLY_DEPTH } from "../../protocol/json-input";
import type { RunPolicy } from "../../protocol/policy";
import { checkPlainJson } from "../../protocol/plain-json";
import { jsonTextProblem } from "../../protocol/plain-text";
import type { JsonValue, Question } from "../../protocol/question";
import { alwaysOption, approvalAnswer } from "./approvals";
import { validateAgainstSchema } from "./reply-schema";

/**
 * The limits every reply meets before anything is stored, whatever its outcome (a reply to a closed
 * question too): finite plain JSON within the run's byte limit and the reply depth.
 */
export function checkReplyLimits(policy: RunPolicy, value: unknown): void {
  checkPlainJson(value, { maxBytes: policy.maxReplyBytes, maxDepth: MAX_REPLY_DEPTH });
  const problem = jsonTextProblem(value, MAX_REPLY_DEPTH);
  if (problem) throw new AppError("invalid_answer", `${problem[0]!.toUpperCase()}${problem.slice(1)}.`);
}

/**
 * Checks a reply against its question and the run's policy, and returns the answer to store.
 * Finite plain JSON within the byte and depth limits; then the reply schema, or for classic
 * questions the options, kinds and multi rules. Throws a typed AppError; changes nothing.
 */
export function validateReply(question: Question, policy: RunPolicy, value: unknown): JsonValue {
  checkReplyLimits(policy, value);
  if (question.kind === "approval") {
    const answer = approvalAnswer(value);
    if (question.approval) alwaysOption(question.approval, answer);
    return answer;
  }
  if (question.replySchema) {
    checkFormReply(question.replySchema, value);
    validateAgainstSchema(question.replySchema, value);
    return value as JsonValue;
  }
  const isClassic = typeof value === "string" || typeof value === "boolean" || (Array.isArray(value) && value.every((v) => typeof v === "string"));
  if (!isClassic) throw new AppError("invalid_answer", "This question takes text, a list of choices, or true/false.");
  return normalizeAnswer(question, value);
}

/**
 * A reply to a form (a flat reply schema, lib/protocol/forms.ts) is checked field by field first,
 * as the browser's form checks it: `reply_schema_mismatch` names each wrong field in words a person
 * reads, and `details.fields` carries each field's error so a form can show it beside the field.
 * The JSON Schema check still follows (it agrees; it is the authority for every reply schema).
 */
function checkFormReply(schema: Record<string, unknown>, value: unknown): void {
  const form = parseFormSchema(schema);
  if (!form.ok) return;
  const result = validateForm(form.schema, value);
  if (result.ok) return;
  throw new AppError("reply_schema_mismatch", `The answer does not fit the form: ${describeFormErrors(form.schema, result.errors)}.`, {
    details: { fields: result.errors },
  });
}
