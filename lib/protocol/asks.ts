import { z } from "zod";
import { parseFormSchema } from "./forms";
import { MAX_OPTIONS, MAX_OPTION_CHARS, QuestionSpecSchema, type QuestionSpecInput } from "./question";
import { SenderNameSchema } from "./channels";
import { nestedAtMost } from "./json-input";
import { EditRootsSchema, MAX_PREVIEW_CHARS, ToolInputJsonSchemaSchema, ToolNameSchema } from "./permissions";
import { CallbackUrlSchema } from "./webhooks";
import { checkText } from "./plain-text";
import { ApprovalsInputSchema, AudienceFieldsSchema } from "./teams";

/**
 * An ask from outside Parley (`POST /api/asks`; MCP's `ask_user` and `parley ask` take the same
 * fields): an ordinary question of its own run, a run of the built-in function `ask`, which no
 * person starts from the chat. The question is its card in every tab, the CLI inbox and the text
 * channel; the first answer wins; `GET /api/questions/{id}?wait=` tells the asker.
 */
export const ASK_FUNCTION = "ask";
/** The longest `?wait=` a question read holds the request, in seconds. */
export const MAX_ASK_WAIT_SECONDS = 60;
/** The longest an asker may let a question wait before it times out: a week. */
export const MAX_ASK_TIMEOUT_SECONDS = 7 * 24 * 3600;

/** The asker's own key for one ask (`Idempotency-Key`): the same key again never asks twice. */
export const IdempotencyKeySchema = z.string().trim().min(1).max(200);

export const AskFieldsSchema = z.strictObject({
  /** A question (the default), or see ApprovalAskBodySchema. */
  kind: z.literal("question").optional(),
  question: z.string().trim().min(1, "An ask needs a question").max(16_384).superRefine(checkText),
  /** At least one, each different (after trimming); leave it out for a question answered in words. */
  options: z
    .array(z.string().trim().min(1).max(MAX_OPTION_CHARS).superRefine(checkText))
    .min(1, "options needs at least one option (leave options out for a question answered in words)")
    .max(MAX_OPTIONS)
    .refine((options) => new Set(options).size === options.length, "each option must be different")
    .optional(),
  multiple: z.boolean().optional(),
  allow_custom: z.boolean().optional(),
  /** The answer a timeout gives (an option, or options for `multiple`). */
  default: z.union([z.string().superRefine(checkText), z.array(z.string().superRefine(checkText))]).optional(),
  timeout_seconds: z.number().int().positive().max(MAX_ASK_TIMEOUT_SECONDS).optional(),
  /** A flat object schema of primitive fields, as MCP elicitation's form mode; the answer is its content. */
  form: z.record(z.string(), z.unknown()).optional(),
  /** A session id or title; absent: the session named after `from`, made on its first ask. */
  session: z.string().trim().min(1).max(200).superRefine(checkText).optional(),
  /** Who asks, shown on the card: a script's or a client's name. */
  from: SenderNameSchema,
  /** Where the settlement is POSTed (a signed webhook); the host must be allowed by PARLEY_WEBHOOK_HOSTS. The ask API's alone. */
  callbackUrl: CallbackUrlSchema.optional(),
  ...AudienceFieldsSchema.shape,
});

/** A form asks nothing else; a question is what the one schema every question passes allows (multi needs options …). */
export function checkAsk(body: Omit<z.infer<typeof AskFieldsSchema>, "session" | "from" | "callbackUrl"> & { from?: string }, ctx: z.RefinementCtx): void {
  if (body.form !== undefined) {
    if (body.options !== undefined || body.multiple !== undefined || body.allow_custom !== undefined || body.default !== undefined) {
      ctx.addIssue({ code: "custom", path: ["form"], message: "a form has no options, multiple, allow_custom or default" });
    }
    const form = parseFormSchema(body.form);
    if (!form.ok) ctx.addIssue({ code: "custom", path: ["form"], message: form.error });
    return;
  }
  const spec = QuestionSpecSchema.safeParse(askSpecOf(body));
  for (const issue of spec.success ? [] : spec.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
}

export const QuestionAskBodySchema = AskFieldsSchema.superRefine(checkAsk);
export type QuestionAskBody = z.infer<typeof QuestionAskBodySchema>;

/** What the `ask` run is given: the ask without its session (the run is in it already). */
export const AskInputSchema = AskFieldsSchema.omit({ session: true }).superRefine(checkAsk);
export type AskInput = z.infer<typeof AskInputSchema>;

/** The question an ask (not a form) becomes. */
export function askSpecOf(ask: Omit<AskInput, "form" | "from"> & { from?: string }): QuestionSpecInput {
  return {
    kind: "question",
    prompt: ask.question,
    options: ask.options ?? [],
    multi: ask.multiple ?? false,
    allowCustom: ask.allow_custom ?? false,
    timeoutMs: ask.timeout_seconds === undefined ? null : ask.timeout_seconds * 1000,
    owner: ask.from,
    ...(ask.default === undefined ? {} : { default: ask.default }),
  };
}

/** Other query parameters are ignored, as every read ignores them. */
export const QuestionReadQuerySchema = z.object({
  /** Hold the request until the question settles, at most this many seconds. */
  wait: z.coerce.number().int().min(0).max(MAX_ASK_WAIT_SECONDS).optional(),
});

/** The built-in function an approval asked from outside Parley runs (MCP's `request_approval` and `permission_prompt`). */
export const APPROVAL_FUNCTION = "approval";

/** What an approval from outside asks about: a tool of the asker's, by name, and the input it would run with. */
export const ApprovalAskFieldsSchema = z.strictObject({
  tool_name: ToolNameSchema,
  input: z.record(z.string(), nestedAtMost(32)),
  /** What the card shows instead of the input's own preview (a diff, a summary). */
  preview: z.string().max(MAX_PREVIEW_CHARS).superRefine(checkText).optional(),
  /** The tool's input as JSON Schema: with it the answerer may edit the input before allowing ("Edit and allow"); the question's `editedInput` is then what to run. */
  input_schema: ToolInputJsonSchemaSchema.optional(),
  /** The folders your tool works in (absolute): an edited path may be absolute only under one of them. */
  roots: EditRootsSchema.optional(),
});

/** What the `approval` run is given. */
export const ApprovalAskInputSchema = ApprovalAskFieldsSchema.extend({
  from: SenderNameSchema,
  timeout_seconds: z.number().int().positive().max(MAX_ASK_TIMEOUT_SECONDS).optional(),
  ...AudienceFieldsSchema.shape,
  approvals: ApprovalsInputSchema.optional(),
  kind: z.literal("approval").optional(),
});
export type ApprovalAskInput = z.infer<typeof ApprovalAskInputSchema>;

/**
 * `POST /api/asks` with `"kind": "approval"`: may the asker's tool run with this input. Who may
 * approve, and how many of them must (`approvals: { required, from }`), as for any question.
 */
export const ApprovalAskBodySchema = ApprovalAskInputSchema.extend({
  kind: z.literal("approval"),
  session: z.string().trim().min(1).max(200).optional(),
  callbackUrl: CallbackUrlSchema.optional(),
}).strict();
export type ApprovalAskBody = z.infer<typeof ApprovalAskBodySchema>;

/** An ask: a question (no `kind`, or `"question"`), or an approval (`"kind": "approval"`). */
export const AskBodySchema = z.preprocess(
  (raw) => (raw !== null && typeof raw === "object" && !Array.isArray(raw) && !("kind" in raw) ? { ...raw, kind: "question" } : raw),
  z.discriminatedUnion("kind", [QuestionAskBodySchema, ApprovalAskBodySchema]),
);
export type AskBody = z.infer<typeof AskBodySchema>;
