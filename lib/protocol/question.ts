import { z } from "zod";
import { ClosedBySchema } from "./surfaces";
import { nestedAtMost } from "./json-input";
import { ApprovalSpecSchema } from "./permissions";
import { AnswerersSchema, ApprovalsInputSchema, EscalationSchema, QuestionTeamFieldsSchema } from "./teams";

/** `approval`: may a tool run (see ./permissions); answered "once" or "always", or rejected with feedback. */
export const QuestionKindSchema = z.enum(["question", "confirm", "approval"]);
export type QuestionKind = z.infer<typeof QuestionKindSchema>;

export const QuestionStatusSchema = z.enum(["pending", "answered", "declined", "timed_out", "cancelled", "expired"]);
export type QuestionStatus = z.infer<typeof QuestionStatusSchema>;

/** How an ended question ends for the agent function waiting on it. */
export const QuestionOutcomeSchema = QuestionStatusSchema.exclude(["pending"]);
export type QuestionOutcome = z.infer<typeof QuestionOutcomeSchema>;

/** A reply: a string, a list of strings for multi, a boolean for a confirm. */
export const AnswerValueSchema = z.union([z.string(), z.array(z.string()), z.boolean()]);
export type AnswerValue = z.infer<typeof AnswerValueSchema>;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/**
 * A stored answer: a classic answer, or any JSON that satisfies the question's reply schema. Also
 * what a run's JSON crosses IPC as. Its nesting is bounded (without recursion) before `z.json()`,
 * which recurses, reads it.
 */
export const JsonValueSchema: z.ZodType<JsonValue> = nestedAtMost().pipe(z.json());
/** Reply schemas are JSON Schema objects (a subset; checked by the server), bounded in nesting before anything walks them. */
export const ReplySchemaSchema = nestedAtMost().pipe(z.record(z.string(), z.unknown()));

export const MAX_OPTION_CHARS = 200;
export const MAX_OPTIONS = 50;
export const MAX_DETAIL_CHARS = 20_000;
export const MAX_ANSWER_CHARS = 10_000;

/** What an agent function asks for: the part of a question the worker decides. */
export const QuestionSpecSchema = z
  .object({
    kind: QuestionKindSchema,
    // The run's policy (maxPromptChars) bounds it further.
    prompt: z.string().trim().min(1, "A question needs a prompt").max(16_384),
    options: z.array(z.string().trim().min(1).max(MAX_OPTION_CHARS)).max(MAX_OPTIONS).default([]),
    multi: z.boolean().default(false),
    allowCustom: z.boolean().default(false),
    detail: z.string().max(MAX_DETAIL_CHARS).nullable().default(null),
    /** null = never expires */
    timeoutMs: z.number().int().positive().nullable(),
    /** The answer a timeout resolves to; absent = timing out is an error for the asker. */
    default: JsonValueSchema.optional(),
    /** When set, the reply is any JSON that satisfies this schema. */
    replySchema: ReplySchemaSchema.nullable().default(null),
    /** Shown as the card's owner; the run's function name when absent. */
    owner: z.string().trim().min(1).max(100).optional(),
    /** For an approval: the tool, its input and preview, what rules match. */
    approval: ApprovalSpecSchema.optional(),
    /** Who may answer (people's names); absent: any member of the session. */
    answerers: AnswerersSchema.optional(),
    /** After so long with no allowed answer, more people may answer and are told. */
    escalate: EscalationSchema.optional(),
    /** An approval that needs several people's votes. */
    approvals: ApprovalsInputSchema.optional(),
  })
  .refine((q) => !(q.multi && q.options.length === 0), { message: "multi needs options", path: ["multi"] })
  .refine((q) => q.kind !== "confirm" || (q.options.length === 0 && !q.multi), {
    message: "a confirm has no options",
    path: ["options"],
  })
  .refine((q) => (q.kind === "approval") === (q.approval !== undefined), { message: "an approval, and only an approval, names its tool", path: ["approval"] })
  .refine((q) => q.kind !== "approval" || (q.options.length === 0 && !q.multi && q.replySchema === null), { message: "an approval has no options or reply schema", path: ["options"] })
  .refine((q) => q.approvals === undefined || q.kind === "approval", { message: "only an approval takes approvals", path: ["approvals"] });
export type QuestionSpec = z.infer<typeof QuestionSpecSchema>;
export type QuestionSpecInput = z.input<typeof QuestionSpecSchema>;

/** A question as every client sees it. */
export const QuestionSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  /** The run that owns the question (and waits for its answer). */
  runId: z.string(),
  /** The root of that run's tree: the run a person started. Equal to runId for a root run. */
  rootRunId: z.string(),
  /** The agent function that asked, shown as the card's owner. */
  owner: z.string(),
  /** Position in the owning run's journal. */
  seq: z.number().int(),
  /** Names this pending request; the CLI answers by run id and pending id. */
  pendingId: z.string(),
  /** Hash over the run, the question and its reply schema; a reply may name it to guard against stale targets. */
  targetDigest: z.string(),
  replySchema: ReplySchemaSchema.nullable(),
  kind: QuestionKindSchema,
  /** For an approval: the tool, its input and preview (null for other kinds). */
  approval: ApprovalSpecSchema.nullable(),
  prompt: z.string(),
  options: z.array(z.string()),
  multi: z.boolean(),
  allowCustom: z.boolean(),
  detail: z.string().nullable(),
  hasDefault: z.boolean(),
  default: JsonValueSchema.nullable(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  status: QuestionStatusSchema,
  answer: JsonValueSchema.nullable(),
  feedback: z.string().nullable(),
  closedBy: ClosedBySchema.nullable(),
  closedAt: z.string().nullable(),
  ...QuestionTeamFieldsSchema.shape,
});
export type Question = z.infer<typeof QuestionSchema>;

// Commands and receipts live in ./commands (the one command contract); these names stay importable from here.
export type { CommandKind, QuestionRejectCommand, QuestionReplyCommand, Receipt, ReplyOutcome, ReplyReceipt } from "./commands";
