import { z } from "zod";
import { WireErrorSchema } from "./errors";
import { AnswerValueSchema, QuestionOutcomeSchema, QuestionSpecSchema } from "./question";

/**
 * Messages between the server (parent) and an agent worker (child process).
 * Both sides validate everything they receive against these unions.
 */

// parent → child
export const RunStartMessageSchema = z.object({
  type: z.literal("run.start"),
  runId: z.string(),
  sessionId: z.string(),
  functionName: z.string(),
  input: z.unknown(),
  canAsk: z.boolean(),
});
/** The answer queue: a settled question, keyed by its id. */
export const QuestionSettledMessageSchema = z.object({
  type: z.literal("question.settled"),
  runId: z.string(),
  questionId: z.string(),
  outcome: QuestionOutcomeSchema,
  value: AnswerValueSchema.nullable(),
  feedback: z.string().nullable(),
});
export const RunCancelMessageSchema = z.object({
  type: z.literal("run.cancel"),
  runId: z.string(),
  reason: z.string(),
});
export const ParentToChildSchema = z.discriminatedUnion("type", [
  RunStartMessageSchema,
  QuestionSettledMessageSchema,
  RunCancelMessageSchema,
]);
export type ParentToChild = z.infer<typeof ParentToChildSchema>;

// child → parent
export const WorkerReadyMessageSchema = z.object({ type: z.literal("worker.ready"), pid: z.number().int() });
export const QuestionAskMessageSchema = z.object({
  type: z.literal("question.ask"),
  runId: z.string(),
  questionId: z.string(),
  spec: QuestionSpecSchema,
});
export const RunSayMessageSchema = z.object({
  type: z.literal("run.say"),
  runId: z.string(),
  text: z.string().min(1).max(20_000),
});
export const RunProgressMessageSchema = z.object({
  type: z.literal("run.progress"),
  runId: z.string(),
  text: z.string().max(500).nullable(),
});
export const RunFinishedMessageSchema = z.object({
  type: z.literal("run.finished"),
  runId: z.string(),
  status: z.enum(["succeeded", "failed", "cancelled"]),
  result: z.unknown().optional(),
  error: WireErrorSchema.extend({ code: z.string() }).optional(),
});
export const ChildToParentSchema = z.discriminatedUnion("type", [
  WorkerReadyMessageSchema,
  QuestionAskMessageSchema,
  RunSayMessageSchema,
  RunProgressMessageSchema,
  RunFinishedMessageSchema,
]);
export type ChildToParent = z.infer<typeof ChildToParentSchema>;
export type RunFinishedMessage = z.infer<typeof RunFinishedMessageSchema>;
