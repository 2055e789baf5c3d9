import { z } from "zod";
import { AgentFunctionInfoSchema, FINAL_RUN_STATUSES, FunctionLoadFailureSchema } from "./entities";
import { WireErrorSchema } from "./errors";
import { nestedAtMost } from "./json-input";
import { JsonValueSchema, QuestionOutcomeSchema, QuestionSpecSchema } from "./question";

/**
 * Messages between the server (parent) and an agent worker (child process).
 * Both sides validate everything they receive against these unions.
 *
 * Durability: every operation of a run that must not happen twice (a step, a chat message,
 * a question, a child run) has a `seq`, its position in the run's journal. A resumed run is
 * started with its journal and replays it: recorded results return at once.
 */

/** How a question ended, as its run hears it (from the answer queue, or from its journal on replay). */
export const QuestionSettlementSchema = z.object({
  outcome: QuestionOutcomeSchema,
  value: JsonValueSchema.nullable(),
  feedback: z.string().nullable(),
  /** An approval allowed with an edited input: the input the tool runs with. */
  input: z.record(z.string(), JsonValueSchema).nullish(),
});
export type QuestionSettlement = z.infer<typeof QuestionSettlementSchema>;
/** How a child run ended, as the run that called it hears it. */
export const CallSettlementSchema = z.object({ status: z.enum(FINAL_RUN_STATUSES), result: JsonValueSchema.nullable(), error: z.string().nullable() });
export type CallSettlement = z.infer<typeof CallSettlementSchema>;

/** How a journaled operation ended, as the worker replays it. */
export const JournalRecordSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("step"), seq: z.number().int(), digest: z.string(), output: JsonValueSchema }),
  /** `text`: the message as stored (a streamed reply's replay returns it), when the journal kept it. */
  z.object({ kind: z.literal("say"), seq: z.number().int(), digest: z.string(), text: z.string().optional() }),
  z.object({
    kind: z.literal("question"),
    seq: z.number().int(),
    digest: z.string(),
    questionId: z.string(),
    /** null while the question is still pending */
    settlement: QuestionSettlementSchema.nullable(),
  }),
  z.object({
    kind: z.literal("call"),
    seq: z.number().int(),
    digest: z.string(),
    childRunId: z.string(),
    /** null while the child run is still active */
    settlement: CallSettlementSchema.nullable(),
  }),
]);
export type JournalRecord = z.infer<typeof JournalRecordSchema>;

// parent → child
export const RunStartMessageSchema = z.object({
  type: z.literal("run.start"),
  runId: z.string(),
  sessionId: z.string(),
  functionName: z.string(),
  input: nestedAtMost(),
  canAsk: z.boolean(),
  journal: z.array(JournalRecordSchema).default([]),
});
/** The answer queue: a settled question, keyed by its id. */
export const QuestionSettledMessageSchema = z.object({
  type: z.literal("question.settled"),
  runId: z.string(),
  questionId: z.string(),
  ...QuestionSettlementSchema.shape,
});
/** The server would not ask the question (policy, invalid schema): `ask` throws a typed error. */
export const QuestionRefusedMessageSchema = z.object({
  type: z.literal("question.refused"),
  runId: z.string(),
  questionId: z.string(),
  error: WireErrorSchema.extend({ code: z.string() }),
});
export const CallSettledMessageSchema = z.object({
  type: z.literal("call.settled"),
  runId: z.string(),
  seq: z.number().int(),
  childRunId: z.string(),
  ...CallSettlementSchema.shape,
});
export const RunCancelMessageSchema = z.object({
  type: z.literal("run.cancel"),
  runId: z.string(),
  reason: z.string(),
});
/** Let go of a run that only waits: its journal brings it back when there is something new. */
export const RunParkMessageSchema = z.object({ type: z.literal("run.park"), runId: z.string() });
export const ParentToChildSchema = z.discriminatedUnion("type", [
  RunStartMessageSchema,
  QuestionSettledMessageSchema,
  QuestionRefusedMessageSchema,
  CallSettledMessageSchema,
  RunCancelMessageSchema,
  RunParkMessageSchema,
]);
export type ParentToChild = z.infer<typeof ParentToChildSchema>;
/** What a run waited for, as its worker hears it: a question's settlement or a child run's end. */
export type SettlementMessage = z.infer<typeof QuestionSettledMessageSchema> | z.infer<typeof CallSettledMessageSchema>;

// child → parent
/** The worker is ready, with the functions it loaded from its function folders and the files it could not load. */
export const WorkerReadyMessageSchema = z.object({
  type: z.literal("worker.ready"),
  pid: z.number().int(),
  functions: z.array(AgentFunctionInfoSchema),
  failures: z.array(FunctionLoadFailureSchema),
});
export const QuestionAskMessageSchema = z.object({
  type: z.literal("question.ask"),
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  digest: z.string(),
  questionId: z.string(),
  spec: QuestionSpecSchema,
});
/** Longest chat message a run may add (a longer streamed reply is cut to it). */
export const MAX_SAY_CHARS = 20_000;
export const RunSayMessageSchema = z.object({
  type: z.literal("run.say"),
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  digest: z.string(),
  text: z.string().min(1).max(MAX_SAY_CHARS),
  /** A streamed reply cut off by Stop: stored marked as stopped. */
  stopped: z.boolean().optional(),
});
/** A piece of a streaming reply (`rt.reply()`), shown live and not journaled: the `run.say` of the same seq stores the whole. */
export const RunSayDeltaMessageSchema = z.object({
  type: z.literal("run.say.delta"),
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  delta: z.string().min(1).max(MAX_SAY_CHARS),
});
export const StepRecordMessageSchema = z.object({
  type: z.literal("step.record"),
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  digest: z.string(),
  name: z.string().min(1).max(200),
  output: JsonValueSchema,
});
export const RunCallMessageSchema = z.object({
  type: z.literal("run.call"),
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  digest: z.string(),
  functionName: z.string().min(1),
  input: JsonValueSchema,
});
export const RunProgressMessageSchema = z.object({
  type: z.literal("run.progress"),
  runId: z.string(),
  text: z.string().max(500).nullable(),
});
export const RunParkedMessageSchema = z.object({
  type: z.literal("run.parked"),
  runId: z.string(),
  /** false when the run was busy (a step in flight) and stays in its worker */
  parked: z.boolean(),
});
/** Most of an error's raw text and stack that a worker hands to the server's log. */
export const MAX_ERROR_DETAIL_CHARS = 8_192;
/**
 * How a run failed: `message` is safe to show anyone (the runtime's own errors, an AgentError,
 * or a generic line); `detail` (raw message and stack) is for the server's log only.
 */
export const RunErrorSchema = WireErrorSchema.extend({
  code: z.string(),
  detail: z.string().max(MAX_ERROR_DETAIL_CHARS).optional(),
});
export type RunError = z.infer<typeof RunErrorSchema>;
export const RunFinishedMessageSchema = z.object({
  type: z.literal("run.finished"),
  runId: z.string(),
  status: z.enum(FINAL_RUN_STATUSES),
  result: nestedAtMost().optional(),
  error: RunErrorSchema.optional(),
});
/** The worker had an uncaught error and may be unsound: the pool kills it when its runs are released. */
export const WorkerRetiringMessageSchema = z.object({ type: z.literal("worker.retiring"), reason: z.string() });
export const ChildToParentSchema = z.discriminatedUnion("type", [
  WorkerReadyMessageSchema,
  QuestionAskMessageSchema,
  RunSayMessageSchema,
  RunSayDeltaMessageSchema,
  StepRecordMessageSchema,
  RunCallMessageSchema,
  RunProgressMessageSchema,
  RunParkedMessageSchema,
  RunFinishedMessageSchema,
  WorkerRetiringMessageSchema,
]);
export type ChildToParent = z.infer<typeof ChildToParentSchema>;
export type RunFinishedMessage = z.infer<typeof RunFinishedMessageSchema>;
