import type { CallSettlement, ChildToParent, JournalRecord, QuestionSettlement } from "../../lib/protocol/ipc";
import type { FormContent } from "../../lib/protocol/forms";
import type { JsonValue } from "../../lib/protocol/question";
import type { Tool, ToolInputs, ToolParsedInputs, ToolResults } from "../tools";
import type { JournalDivergence } from "./errors";

/**
 * The runtime's contract: what an agent function is handed (`Runtime`), what its host gives it
 * (`RuntimeHost`) and drives (`RunController`). runtime.ts builds them from the parts beside it.
 */

/** Who may answer a question (any of the session's members by default), and who else may after a while. */
export interface Audience {
  /** People's names: only they may answer (others see the card read-only). */
  answerers?: string[];
  /** After `after` ("10m", "2h", or ms) with no allowed answer, `to` may answer too and is notified. */
  escalate?: Array<{ after: string | number; to: string[] }>;
}

export interface AskOptions extends Audience {
  /** Choices shown as buttons; omit for free text. */
  options?: string[];
  /** true: checkboxes, the answer is a list. */
  multi?: boolean;
  /** true: an "Other" field beside the options. */
  allowCustom?: boolean;
  /** Extra context shown under the prompt. */
  detail?: string;
  /** Default 30 minutes; null = never times out. */
  timeoutMs?: number | null;
  /** Returned when the question times out; without it a timeout throws AskTimeout. */
  default?: string | string[];
  /** The name shown as the card's owner; the run's function by default. */
  owner?: string;
}

export interface AskJsonOptions extends Audience {
  /** JSON Schema (subset: type, enum, const, properties, required, items, min/max, pattern, local $ref). */
  schema: Record<string, unknown>;
  detail?: string;
  timeoutMs?: number | null;
  default?: JsonValue;
  owner?: string;
}

export interface FormOptions<T extends FormContent = FormContent> extends Audience {
  /** Extra context shown under the message. */
  detail?: string;
  /** Default 30 minutes; null = never times out. */
  timeoutMs?: number | null;
  /** The content a timeout accepts (checked against the schema when the form is asked); without it a timeout is `cancel`. */
  default?: T;
  owner?: string;
}

/**
 * How a form ended, as in MCP elicitation: `accept` with the content the person sent (checked
 * against the schema by the server), `decline` when they declined (with what they wrote, if
 * anything), `cancel` when nobody answered in time and there is no default.
 */
export type FormResult<T extends FormContent = FormContent> = { action: "accept"; content: T } | { action: "decline"; feedback?: string } | { action: "cancel" };

export interface ConfirmOptions extends Audience {
  detail?: string;
  timeoutMs?: number | null;
  /** Returned on timeout; false unless given. */
  default?: boolean;
  owner?: string;
}

/** What a step's function (and a tool's implementation) is handed. */
export interface StepContext {
  /**
   * `${runId}:${seq}`: the run and the step's position in its journal, the same when the run is
   * replayed. A step cut off by a crash before its result was journaled runs again with the same
   * key: hand it to the outside system the step changes, so it can do the change only once.
   */
  idempotencyKey: string;
}

export interface ToolOptions extends Audience {
  /** An approval that needs several people: `required` of `from` (default: its answerers) must allow it; `rejections` (default 1) reject it. */
  approvals?: { required: number; from?: string[]; rejections?: number };
  /** How long the approval waits for a person: default 30 minutes; null = no limit. */
  timeoutMs?: number | null;
  /** What a timeout means: "deny" (default) throws ToolDenied, "allow" runs the tool. */
  fallback?: "deny" | "allow";
  /** The name shown as the approval card's owner; the run's function by default. */
  owner?: string;
  /**
   * Called (live and on replay) when the person edited the call before allowing it: the input the
   * tool runs with instead, as its schema checked it. Only a catalogue tool, or one from outside
   * that brings its input's JSON Schema, can be edited.
   */
  onEdited?: (input: unknown) => void;
}

/** The input `rt.tool` takes for a tool of the catalogue (anything for another name: its schema decides). */
export type ToolInputOf<N extends string> = N extends keyof ToolInputs ? ToolInputs[N] : unknown;
/** The checked, normalised input a tool's implementation gets. */
export type ToolParsedInputOf<N extends string> = N extends keyof ToolParsedInputs ? ToolParsedInputs[N] : unknown;
/** What a catalogue tool's real implementation returns. */
export type ToolResultOf<N extends string> = N extends keyof ToolResults ? ToolResults[N] : JsonValue;

/** How a question ended, as the runtime hands it to `ask`. */
export type Settlement = QuestionSettlement;
export type { CallSettlement };

/**
 * An agent message written while it is made (`rt.reply()`): every tab of the session sees each
 * piece as it is appended, and the whole is stored once, by `end`.
 */
export interface ReplyStream {
  /** Adds text: sent to the tabs at once (not journaled). Ignored after `end`, on replay, and past 20,000 characters. */
  append(delta: string): void;
  /**
   * Stores the reply as the agent message (journaled, once) and returns its full text.
   * `stopped: true` marks it as cut off (Stop while it streamed). Safe to call again: later calls
   * only return the text. An empty reply stores nothing. On replay it returns the recorded text
   * (or "" when the journal did not keep it) and sends nothing.
   */
  end(options?: { stopped?: boolean }): string;
  /** The text appended so far (on replay: the recorded text). */
  readonly text: string;
}

export interface Runtime {
  readonly runId: string;
  readonly sessionId: string;
  /** Aborted when the run is stopped. */
  readonly signal: AbortSignal;
  ask(prompt: string, options: AskOptions & { multi: true }): Promise<string[]>;
  ask(prompt: string, options?: AskOptions): Promise<string>;
  /** A question whose answer is JSON checked against a reply schema. */
  askJson<T extends JsonValue = JsonValue>(prompt: string, options: AskJsonOptions): Promise<T>;
  confirm(prompt: string, options?: ConfirmOptions): Promise<boolean>;
  /**
   * A form (MCP elicitation's shape): `schema` is a flat object of primitive fields (see
   * lib/protocol/forms.ts): strings with min/max length and a format (email, uri, date,
   * date-time), numbers and integers with min/max, booleans, enums with titles, and a `required`
   * list. Shown as a real form; resolves to `accept` with the content, `decline`, or `cancel`
   * (a timeout without `default`). An invalid schema throws FormSchemaInvalid before anything is
   * asked; a stopped run (or a question cancelled with its run) throws RunCancelled; a headless
   * run accepts the default, or throws CannotAsk.
   */
  form<T extends FormContent = FormContent>(message: string, schema: Record<string, unknown>, options?: FormOptions<T>): Promise<FormResult<T>>;
  /** false when nobody can answer (a headless run). */
  canAsk(): boolean;
  /** Free text, or null on decline or timeout. */
  askUser(prompt: string, options?: Omit<AskOptions, "default">): Promise<string | null>;
  /**
   * Runs `fn` once and records its (JSON) result in the run's journal; when the run is resumed
   * by replay, the recorded result returns at once instead. Wrap every model call and tool use.
   * `fn` gets `{ idempotencyKey }` (`${runId}:${seq}`, stable across replay): a step cut off by a
   * crash before its result was journaled runs again, with the same key.
   */
  step<T>(name: string, fn: (ctx: StepContext) => Promise<T> | T): Promise<T>;
  /**
   * Uses a tool of the catalogue (workers/tools): checks `input` against the tool's schema (a bad
   * one throws ToolInputInvalid, an unknown name UnknownTool, before anything is asked), then its
   * checks on disk (a path leading out of the workspace throws ToolDenied, a file that cannot be
   * edited ToolFailed, still before anything is asked), then asks for approval as a question of
   * kind "approval" — always, even when `canAsk()` is false: the server's permission rules may
   * allow or deny it at once, and a run nobody can answer gets it declined. Allowed ("once" or
   * "always") → runs the tool as a journaled step and returns its (JSON) result: the tool's real
   * implementation in the workspace, or `impl(input, { idempotencyKey })` when the caller brings
   * its own. A replayed run returns the recorded result without asking or running the tool again.
   * The real implementation's failure (a missing file …) is recorded and thrown as ToolFailed.
   * Rejected or denied → throws ToolDenied (its message says why, with the person's feedback); no
   * answer in time → the approval's fallback: "deny" (default) throws ToolDenied ("No answer in 30
   * minutes: denied."), "allow" runs the tool. Approvals count against the run's question policy
   * like questions (a refused one throws AskRefused).
   */
  tool<N extends string, T>(name: N, input: ToolInputOf<N>, impl: (input: ToolParsedInputOf<N>, ctx: StepContext) => Promise<T> | T, options?: ToolOptions): Promise<T>;
  tool<N extends string>(name: N, input: ToolInputOf<N>, impl?: undefined, options?: ToolOptions): Promise<ToolResultOf<N>>;
  /** A tool that is not in the catalogue, by its definition (a tool outside Parley: workers/tools/external-tool.ts); it runs `impl` once allowed. */
  tool<T>(tool: Tool, input: unknown, impl: (input: never, ctx: StepContext) => Promise<T> | T, options?: ToolOptions): Promise<T>;
  /** Starts a child run of another agent function and waits for its result. */
  call<T extends JsonValue = JsonValue>(functionName: string, input?: JsonValue): Promise<T>;
  /** Adds an agent message to the chat (once, even when the run is replayed). */
  say(text: string): void;
  /**
   * Starts an agent message that streams: it claims its journal position now (before its text is
   * known), so a replayed run finds it at the same place; see ReplyStream. End it in a `finally`
   * (`end({ stopped: rt.signal.aborted })`) so a Stop keeps the partial text, marked as stopped.
   */
  reply(): ReplyStream;
  /** Shows what the run is doing now (null clears it). */
  progress(text: string | null): void;
  /** Resolves after `ms`, or rejects with RunCancelled when the run is stopped. */
  sleep(ms: number): Promise<void>;
  /** The same runtime, its questions labelled with another owner (a router running a sub-agent in-process). */
  withOwner(owner: string): Runtime;
}

export interface RuntimeHost {
  runId: string;
  sessionId: string;
  canAsk: boolean;
  /** What the run did before: replayed instead of done again. */
  journal?: JournalRecord[];
  send(message: ChildToParent): void;
  newId?: () => string;
  /** Finds a tool by name: the catalogue of workers/tools by default. */
  findTool?: (name: string) => Tool | undefined;
  /** The folder the real tools work in: PARLEY_WORKSPACE (or ./workspace) by default. */
  workspace?: string;
}

/** The runtime of one run, plus the entry points its host drives. */
export interface RunController {
  rt: Runtime;
  /** Delivers a settled question from the answer queue; one that arrives before its `ask` is kept for it. */
  settle(questionId: string, settlement: Settlement): void;
  /** The server refused a question: its `ask` throws AskRefused. */
  refuse(questionId: string, error: { code: string; message: string }): void;
  /** Delivers a child run's end to the `call` waiting for it. */
  settleCall(seq: number, settlement: CallSettlement): void;
  /** Ends every pending wait with RunCancelled and aborts the signal. */
  cancel(reason: string): void;
  /** Drops the run if it only waits (no step in flight); false when it is busy. */
  park(): boolean;
  /** The divergence that fails this run, if replay found one. */
  divergence(): JournalDivergence | null;
  isParked(): boolean;
  pendingCount(): number;
}
