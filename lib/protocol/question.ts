import { z } from "zod";

export const QuestionKindSchema = z.enum(["question", "confirm"]);
export type QuestionKind = z.infer<typeof QuestionKindSchema>;

export const QuestionStatusSchema = z.enum(["pending", "answered", "declined", "timed_out", "cancelled", "expired"]);
export type QuestionStatus = z.infer<typeof QuestionStatusSchema>;

/** How an ended question ends for the agent function waiting on it. */
export const QuestionOutcomeSchema = QuestionStatusSchema.exclude(["pending"]);
export type QuestionOutcome = z.infer<typeof QuestionOutcomeSchema>;

/** A reply: a string, a list of strings for multi, a boolean for a confirm. */
export const AnswerValueSchema = z.union([z.string(), z.array(z.string()), z.boolean()]);
export type AnswerValue = z.infer<typeof AnswerValueSchema>;

export const MAX_PROMPT_CHARS = 4_096;
export const MAX_OPTION_CHARS = 200;
export const MAX_OPTIONS = 50;
export const MAX_DETAIL_CHARS = 20_000;
export const MAX_ANSWER_CHARS = 10_000;

/** What an agent function asks for: the part of a question the worker decides. */
export const QuestionSpecSchema = z
  .object({
    kind: QuestionKindSchema,
    prompt: z.string().trim().min(1, "A question needs a prompt").max(MAX_PROMPT_CHARS),
    options: z.array(z.string().trim().min(1).max(MAX_OPTION_CHARS)).max(MAX_OPTIONS).default([]),
    multi: z.boolean().default(false),
    allowCustom: z.boolean().default(false),
    detail: z.string().max(MAX_DETAIL_CHARS).nullable().default(null),
    /** null = never expires */
    timeoutMs: z.number().int().positive().nullable(),
    /** The answer a timeout resolves to; absent = timing out is an error for the asker. */
    default: AnswerValueSchema.optional(),
  })
  .refine((q) => !(q.multi && q.options.length === 0), { message: "multi needs options", path: ["multi"] })
  .refine((q) => q.kind !== "confirm" || (q.options.length === 0 && !q.multi), {
    message: "a confirm has no options",
    path: ["options"],
  });
export type QuestionSpec = z.infer<typeof QuestionSpecSchema>;
export type QuestionSpecInput = z.input<typeof QuestionSpecSchema>;

/** A question as every client sees it. */
export const QuestionSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  runId: z.string(),
  /** The agent function that asked, shown as the card's owner. */
  owner: z.string(),
  kind: QuestionKindSchema,
  prompt: z.string(),
  options: z.array(z.string()),
  multi: z.boolean(),
  allowCustom: z.boolean(),
  detail: z.string().nullable(),
  hasDefault: z.boolean(),
  default: AnswerValueSchema.nullable(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  status: QuestionStatusSchema,
  answer: AnswerValueSchema.nullable(),
  feedback: z.string().nullable(),
  closedBy: z.string().nullable(),
  closedAt: z.string().nullable(),
});
export type Question = z.infer<typeof QuestionSchema>;

export const QuestionReplyCommandSchema = z.object({
  id: z.string().min(1),
  value: AnswerValueSchema,
});
export type QuestionReplyCommand = z.infer<typeof QuestionReplyCommandSchema>;

export const QuestionRejectCommandSchema = z.object({
  id: z.string().min(1),
  message: z.string().max(MAX_ANSWER_CHARS).optional(),
});
export type QuestionRejectCommand = z.infer<typeof QuestionRejectCommandSchema>;

/**
 * The result of a reply or a reject. The winner gets `answered` / `declined`;
 * anyone later gets `already_answered` (someone settled it) or `already_closed`
 * (it timed out, was cancelled or expired), with the question as it now stands.
 */
export const ReplyOutcomeSchema = z.enum(["answered", "declined", "already_answered", "already_closed"]);
export type ReplyOutcome = z.infer<typeof ReplyOutcomeSchema>;

export const ReplyReceiptSchema = z.object({
  outcome: ReplyOutcomeSchema,
  question: QuestionSchema,
});
export type ReplyReceipt = z.infer<typeof ReplyReceiptSchema>;
