import { z } from "zod";
import { RunSchema } from "./entities";
import { parseOrThrow } from "./errors";
import { EditedInputSchema, ReplyValueSchema, RunInputSchema } from "./json-input";
import { GrantUntilSchema } from "./permissions";
import { checkText } from "./plain-text";
import { RunPolicySchema } from "./policy";
import { MAX_ANSWER_CHARS, QuestionSchema } from "./question";

/**
 * The one command contract. Each command is declared once, with its target, here; REST, Socket.IO,
 * the CLI and the inbox of queued commands all parse with these schemas (REST takes the target
 * from the path; Socket.IO names a question `id`).
 *
 * Every command is strict: an unknown key is refused (400, naming it) rather than ignored, so a
 * body meant for another command is never half-understood. JSON a command carries (a reply's
 * value, a run's input) is checked against the global ceilings here, without recursion, before
 * anything hashes or stores it.
 */

/** Optional on every command: the same commandId repeated returns the first receipt. */
export const CommandIdSchema = z.string().trim().min(1).max(200);
/** An id of a session, run or question: ours are UUIDs; anything longer than this names nothing. */
export const IdSchema = z.string().min(1).max(200);
/** A reply may name the question's targetDigest: when the question is not that one any more, nothing is applied. */
const DigestSchema = z.string().min(1).nullable().default(null);

export const CommandKindSchema = z.enum(["send_input", "reject_input", "start_run", "resume", "stop_run"]);
export type CommandKind = z.infer<typeof CommandKindSchema>;

/** Answer a pending question. */
export const SendInputSchema = z.strictObject({
  questionId: IdSchema,
  /** A string, a list of strings for multi, a boolean for a confirm, or JSON for a reply schema. */
  value: ReplyValueSchema,
  /** "Edit and allow": an approval allowed once, with the tool's input as the answerer edited it (checked against the tool's schema). */
  input: EditedInputSchema.optional(),
  /** With "Allow always": when the rule it adds stops applying (an hour, the end of the day); absent: for good. */
  until: GrantUntilSchema.optional(),
  digest: DigestSchema,
  commandId: CommandIdSchema.optional(),
});

/** Decline a pending question. */
export const RejectInputSchema = z.strictObject({
  questionId: IdSchema,
  message: z.string().max(MAX_ANSWER_CHARS).superRefine(checkText).nullable().default(null),
  digest: DigestSchema,
  commandId: CommandIdSchema.optional(),
});

/** Start a run of an agent function in a session. */
export const StartRunSchema = z.strictObject({
  sessionId: IdSchema,
  function: z.string().min(1),
  input: RunInputSchema.optional(),
  policy: RunPolicySchema.partial().optional(),
  commandId: CommandIdSchema.optional(),
});

/** Load an active run that is in no worker (e.g. parked) into a worker, replaying its journal. */
export const ResumeSchema = z.strictObject({ runId: IdSchema, commandId: CommandIdSchema.optional() });

/** Stop a run and its child runs. */
export const StopRunSchema = z.strictObject({ runId: IdSchema, commandId: CommandIdSchema.optional() });

export const COMMAND_SCHEMAS = {
  send_input: SendInputSchema,
  reject_input: RejectInputSchema,
  start_run: StartRunSchema,
  resume: ResumeSchema,
  stop_run: StopRunSchema,
} as const satisfies Record<CommandKind, z.ZodType>;

/** A command as parsed (defaults filled in). */
export type CommandOf<K extends CommandKind> = z.output<(typeof COMMAND_SCHEMAS)[K]>;
/** A command as a caller may send it. */
export type CommandInputOf<K extends CommandKind> = z.input<(typeof COMMAND_SCHEMAS)[K]>;
/** What a commandId stands for: the command without its id. Stored with a queued command and compared between twins. */
export type CommandPayload<K extends CommandKind> = Omit<CommandOf<K>, "commandId">;

export type SendInputCommand = CommandOf<"send_input">;
export type RejectInputCommand = CommandOf<"reject_input">;
export type StartRunCommand = CommandOf<"start_run">;
export type ResumeCommand = CommandOf<"resume">;
export type StopRunCommand = CommandOf<"stop_run">;

/** Commands the CLI may record while no server runs; the server's inbox applies them. */
export const QUEUEABLE_COMMANDS = ["send_input", "reject_input", "resume", "stop_run"] as const satisfies readonly CommandKind[];
export type QueueableCommand = (typeof QUEUEABLE_COMMANDS)[number];
export const isQueueable = (kind: string): kind is QueueableCommand => (QUEUEABLE_COMMANDS as readonly string[]).includes(kind);

/** Parses a command (400 `bad_request` when invalid). */
export function parseCommand<K extends CommandKind>(kind: K, data: unknown): CommandOf<K> {
  return parseOrThrow(COMMAND_SCHEMAS[kind], data) as CommandOf<K>;
}

/** The payload a commandId stands for: the parsed command without the id, absent options as null. */
export function commandPayload<K extends CommandKind>(kind: K, command: CommandInputOf<K>): CommandPayload<K> {
  const { commandId: _id, ...payload } = parseCommand(kind, command);
  return payload;
}

// Transports (strict, as the commands are). REST bodies: the command without its target, which the path names.
export const ReplyBodySchema = SendInputSchema.omit({ questionId: true });
export const RejectBodySchema = RejectInputSchema.omit({ questionId: true });
export const StartRunBodySchema = StartRunSchema.omit({ sessionId: true });
export type StartRunBody = z.input<typeof StartRunBodySchema>;
export const ResumeBodySchema = ResumeSchema.omit({ runId: true });
export const StopRunBodySchema = StopRunSchema.omit({ runId: true });
/** Retry a failed chat turn: nothing to say beyond the run (a second Retry is refused, not repeated). */
export const RetryRunBodySchema = z.strictObject({});

// Socket.IO: a question's commands name it `id`.
export const QuestionReplyCommandSchema = ReplyBodySchema.extend({ id: IdSchema });
export type QuestionReplyCommand = z.input<typeof QuestionReplyCommandSchema>;
export const QuestionRejectCommandSchema = RejectBodySchema.extend({ id: IdSchema });
export type QuestionRejectCommand = z.input<typeof QuestionRejectCommandSchema>;

/** applied: it took effect; queued: recorded, the server applies it when it runs; rejected: it never will (see `error`); target_closed: its target had closed or changed. */
export const ApplyStateSchema = z.enum(["applied", "queued", "rejected", "target_closed"]);
export type ApplyState = z.infer<typeof ApplyStateSchema>;

/** What a command did, so no caller has to infer it from a status code. */
export const ReceiptSchema = z.object({
  commandId: z.string(),
  kind: CommandKindSchema,
  record_state: z.literal("durably_recorded"),
  apply_state: ApplyStateSchema,
  /** start_run, resume and stop_run: the run. */
  runId: z.string().optional(),
  /** rejected: why. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type Receipt = z.infer<typeof ReceiptSchema>;

/**
 * The result of a reply or a reject. The winner gets `answered` / `declined`;
 * anyone later gets `already_answered` (someone settled it) or `already_closed`
 * (it timed out, was cancelled or expired); a reply naming a digest that is not the
 * question's gets `stale_target`; a reply recorded while no server runs gets `queued`. A vote on
 * an approval that needs several people which did not decide it gets `voted` (the question, still
 * pending, carries every vote so far; a person's second vote changes nothing).
 */
export const ReplyOutcomeSchema = z.enum(["answered", "declined", "already_answered", "already_closed", "stale_target", "queued", "voted"]);
export type ReplyOutcome = z.infer<typeof ReplyOutcomeSchema>;

/** A reply that changed nothing because the question had moved on: settled already, or changed since the answerer saw it. */
export const cameTooLate = (outcome: ReplyOutcome): boolean => outcome === "already_answered" || outcome === "already_closed" || outcome === "stale_target";

export const ReplyReceiptSchema = ReceiptSchema.extend({
  kind: z.enum(["send_input", "reject_input"]),
  outcome: ReplyOutcomeSchema,
  question: QuestionSchema,
});
export type ReplyReceipt = z.infer<typeof ReplyReceiptSchema>;

export const StartRunReceiptSchema = ReceiptSchema.extend({ kind: z.literal("start_run"), runId: z.string() });
export type StartRunReceipt = z.infer<typeof StartRunReceiptSchema>;

export const ResumeReceiptSchema = ReceiptSchema.extend({ kind: z.literal("resume"), runId: z.string() });
export type ResumeReceipt = z.infer<typeof ResumeReceiptSchema>;

/**
 * How a stop ended: `stopped` (it ended the run, cancelled), `finished_first` (the run reached its
 * own final state before the stop took effect), `already_ended` (it had ended before the stop
 * arrived), or `queued` (recorded while no server runs).
 */
export const StopOutcomeSchema = z.enum(["stopped", "finished_first", "already_ended", "queued"]);
export type StopOutcome = z.infer<typeof StopOutcomeSchema>;

export const StopReceiptSchema = ReceiptSchema.extend({ kind: z.literal("stop_run"), runId: z.string(), outcome: StopOutcomeSchema });
export type StopReceipt = z.infer<typeof StopReceiptSchema>;

/** A started run with the receipt of the command that started it. */
export const StartedRunSchema = RunSchema.extend({ receipt: ReceiptSchema });
export type StartedRun = z.infer<typeof StartedRunSchema>;

/** `POST /api/runs/{id}/stop`: the run once it has ended, with the stop's receipt. */
export const StoppedRunSchema = RunSchema.extend({ receipt: StopReceiptSchema });
export type StoppedRun = z.infer<typeof StoppedRunSchema>;

/** The one receipt builder: every command's receipt is recorded durably before it is returned. */
export function buildReceipt<R extends Receipt>(fields: Omit<R, "record_state">): R {
  const { commandId, kind, apply_state, ...rest } = fields as Omit<Receipt, "record_state">;
  return { commandId, kind, record_state: "durably_recorded", apply_state, ...rest } as R;
}

/** A stop's receipt: only `stopped` applied it; a run that ended first or before was a closed target. */
export function buildStopReceipt({ commandId, runId, outcome }: { commandId: string; runId: string; outcome: StopOutcome }): StopReceipt {
  const apply_state: ApplyState = outcome === "stopped" ? "applied" : outcome === "queued" ? "queued" : "target_closed";
  return buildReceipt<StopReceipt>({ commandId, kind: "stop_run", apply_state, runId, outcome });
}
