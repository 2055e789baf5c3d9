import { EmailDeliverySchema } from "./email";
import { SlackDeliverySchema } from "./slack";
import { z } from "zod";
import { RunPolicySchema } from "./policy";
import { ClientSurfaceSchema } from "./rest";
import { QuestionSchema } from "./question";
import { WebhookDeliverySchema } from "./webhooks";

export const SessionSchema = z.object({
  id: z.string(),
  /** Who may see it (see lib/protocol/access.ts). */
  ownerId: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** How many questions of this session wait for an answer. */
  pendingCount: z.number().int().nonnegative(),
  /** Whether its owner shares it with anyone (its members: `GET /api/sessions/{id}/members`). */
  shared: z.boolean(),
});
export type Session = z.infer<typeof SessionSchema>;

export const MessageRoleSchema = z.enum(["user", "agent", "system"]);
export type MessageRole = z.infer<typeof MessageRoleSchema>;

export const MessageSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  runId: z.string().nullable(),
  role: MessageRoleSchema,
  text: z.string(),
  /** An agent reply cut off by Stop while it streamed: the text is what had arrived. */
  stopped: z.boolean().optional(),
  /** Who wrote a user message that came from elsewhere than the app ("Ann (SMS) via text channel"); absent for the person at the app. */
  sender: z.string().optional(),
  createdAt: z.string(),
});
export type Message = z.infer<typeof MessageSchema>;

export const RunStatusSchema = z.enum(["running", "waiting_input", "succeeded", "failed", "cancelled"]);
export type RunStatus = z.infer<typeof RunStatusSchema>;
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ["running", "waiting_input"];
/** A run ends in exactly one of these, decided once. */
export const FINAL_RUN_STATUSES = ["succeeded", "failed", "cancelled"] as const satisfies readonly RunStatus[];
export type FinalRunStatus = (typeof FINAL_RUN_STATUSES)[number];
export const isFinalRunStatus = (status: string): status is FinalRunStatus => (FINAL_RUN_STATUSES as readonly string[]).includes(status);

/**
 * Who started a run from outside the chat, as the server knows it: through the REST API, with
 * which credential (an API token by its name). `clientSays` is what the client said it was
 * (`X-Parley-Surface: cli`): anyone may send that, so it is shown as its word, not as a fact.
 */
export const RunStarterSchema = z.object({
  /** The REST API, or Parley's MCP server (`/mcp`): an agent's tool call. */
  surface: z.enum(["rest", "mcp"]),
  via: z.enum(["cookie", "server_token", "api_token"]),
  tokenName: z.string().max(200).optional(),
  /** The API token's id (what `parley token list` shows): a token that may only ask reads the questions its runs asked. */
  tokenId: z.string().max(100).optional(),
  clientSays: ClientSurfaceSchema.optional(),
  /** The MCP client's name, as it gave it when it connected (its word). */
  mcpClient: z.string().max(200).optional(),
});
export type RunStarter = z.infer<typeof RunStarterSchema>;

export const RunSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  ownerId: z.string(),
  functionName: z.string(),
  input: z.unknown(),
  status: RunStatusSchema,
  result: z.unknown().nullable(),
  error: z.string().nullable(),
  progress: z.string().nullable(),
  policy: RunPolicySchema,
  canAsk: z.boolean(),
  /** Nested runs: the run that started this one (null for a root run) and the root of the tree. */
  parentRunId: z.string().nullable(),
  rootRunId: z.string(),
  /** Execution time in workers; time waiting for a person does not count. */
  activeMs: z.number().int(),
  /** Times a worker started the run; above 1 it was resumed by replaying its journal. */
  attempts: z.number().int(),
  /** This run is its session's active chat turn: a new message waits until it ends. */
  holdsTurn: z.boolean(),
  /** Started through the REST API or the CLI (null: a chat turn, or a child run of another run). */
  startedBy: RunStarterSchema.nullable(),
  /** The person who started it (sent the chat message, called the API); null for a run older than this was kept. */
  starterId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type Run = z.infer<typeof RunSchema>;

/** `GET /api/runs/{id}`: the run, its journal, and the pending questions of its whole tree. */
export const RunDetailSchema = RunSchema.extend({
  journal: z.array(z.object({ seq: z.number().int(), kind: z.string(), name: z.string(), questionId: z.string().nullable(), childRunId: z.string().nullable(), output: z.unknown().nullable() })),
  pendingQuestions: z.array(QuestionSchema),
  /** The audit trail: every question and approval this run asked, in order, with who answered, from where, and how. */
  questions: z.array(QuestionSchema),
  /** Where their settlements were POSTed (an ask's callbackUrl), in order. */
  deliveries: z.array(WebhookDeliverySchema),
  /** Their messages in Slack, in order (docs/slack.md). */
  slack: z.array(SlackDeliverySchema),
  /** Their mails to the people who may answer them, in order (docs/email.md). */
  email: z.array(EmailDeliverySchema),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;

// StartedRunSchema lives with the other command receipts in ./commands.
export type { StartedRun } from "./commands";

/** An agent reply still being written: the run, its journal position, and the text so far. */
export const StreamingReplySchema = z.object({ runId: z.string(), seq: z.number().int().nonnegative(), text: z.string() });
export type StreamingReply = z.infer<typeof StreamingReplySchema>;

/**
 * The piece of a streaming reply that `message.delta` brings. `at`: the length of the reply's text
 * before it, so a tab that got the text in its snapshot skips a piece it already has (events that
 * arrive during a join come twice, never zero times) and a reply that starts again (its run was
 * replayed) starts again in the tab.
 */
export const MessageDeltaSchema = z.object({ sessionId: z.string(), runId: z.string(), seq: z.number().int().nonnegative(), at: z.number().int().nonnegative(), delta: z.string() });
export type MessageDelta = z.infer<typeof MessageDeltaSchema>;

/**
 * Where a session's older history begins: give it as `before` to `GET /api/sessions/{id}/history`.
 * Opaque to clients (a position in the transcript: a time and an id, so items of one millisecond
 * are never skipped or listed twice).
 */
export const HistoryCursorSchema = z.string().min(1).max(200);
/** How many history items (messages and closed questions) a snapshot or a page of history holds at most. */
export const HISTORY_PAGE_ITEMS = 100;

/**
 * History, a page at a time: the messages and closed questions of one stretch of the transcript
 * (oldest first; at most HISTORY_PAGE_ITEMS of them together), and the runs they need to be drawn:
 * the runs they belong to and the runs that started in that stretch.
 */
const HistoryShape = {
  messages: z.array(MessageSchema),
  /** The closed questions asked in this stretch (each drawn as a record where it was asked). */
  closedQuestions: z.array(QuestionSchema),
  runs: z.array(RunSchema),
  /** The older history, to ask for next; null when this reaches the session's beginning. */
  before: HistoryCursorSchema.nullable(),
};

/** `GET /api/sessions/{id}/history?before=…`: the query (a snapshot's or a page's `before`). */
export const HistoryQuerySchema = z.strictObject({ before: HistoryCursorSchema });
/** `GET /api/sessions/{id}/history?before=…`: the page of history before a cursor. */
export const HistoryPageSchema = z.object(HistoryShape);
export type HistoryPage = z.infer<typeof HistoryPageSchema>;

/**
 * What `session.join` and `GET /api/sessions/{id}` return: everything needed to draw a session's
 * end. Its history is the newest page (`before` leads to the older ones); what is live is
 * complete: every pending question, every active run, every reply still streaming.
 */
export const SessionSnapshotSchema = z.object({
  session: SessionSchema,
  ...HistoryShape,
  /** The runs of the newest page of history, and every active run of the session. */
  runs: z.array(RunSchema),
  pendingQuestions: z.array(QuestionSchema),
  /** Agent replies still streaming: the text so far of each (the rest arrives as `message.delta`). */
  streaming: z.array(StreamingReplySchema).optional(),
});
export type SessionSnapshot = z.infer<typeof SessionSnapshotSchema>;

/** An agent function's name: lower case words joined by `-` or `.` (`deploy`, `order-coffee`, `test.ask`). */
export const FunctionNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9]*(?:[.-][a-z0-9]+)*$/, "lower-case words joined by - or . (e.g. order-coffee)")
  .max(64);
/** A chat slash command's word: `/coffee`. */
export const CommandNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, "a lower-case word, - allowed (e.g. coffee)")
  .max(32);

/** What the server knows of an agent function: the workers report it for every function file they loaded. */
export const AgentFunctionInfoSchema = z.object({
  name: FunctionNameSchema,
  description: z.string().trim().min(1).max(300),
  /** Its chat command (`/coffee`), or null when it has none. */
  command: CommandNameSchema.nullable(),
  /** The model agent may start it (as a child run) when a request in the person's own words calls for it. */
  tool: z.boolean(),
});
export type AgentFunctionInfo = z.infer<typeof AgentFunctionInfoSchema>;

/** A function file that could not be loaded (a syntax error, a duplicate name): the server logs it, the chat names it. */
export const FunctionLoadFailureSchema = z.object({ file: z.string(), message: z.string() });
export type FunctionLoadFailure = z.infer<typeof FunctionLoadFailureSchema>;
