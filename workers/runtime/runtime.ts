import { createHash, randomUUID } from "node:crypto";
import { MAX_SAY_CHARS, type CallSettlement, type ChildToParent, type JournalRecord, type QuestionSettlement } from "../../lib/protocol/ipc";
import { canonicalJson } from "../../lib/protocol/plain-json";
import { describeZodError } from "../../lib/protocol/errors";
import { describeFormErrors, parseFormSchema, validateForm, type FormContent } from "../../lib/protocol/forms";
import type { ApprovalSpecInput } from "../../lib/protocol/permissions";
import { normaliseFolder } from "../../lib/permissions/working-folder";
import type { JsonValue, QuestionSpecInput } from "../../lib/protocol/question";
import { clip, findTool, tools as catalogue, workspaceFolder, type Tool, type ToolContext, type ToolInputs, type ToolParsedInputs, type ToolResults } from "../tools";
import {
  AskRefused,
  AskTimeout,
  CannotAsk,
  ChildRunFailed,
  FormSchemaInvalid,
  JournalDivergence,
  RunCancelled,
  RunParked,
  ToolDenied,
  ToolFailed,
  ToolInputInvalid,
  UnknownTool,
  UserDeclined,
  type RuntimeError,
} from "./errors";
import { approvalEdit } from "../tools/edited-call";
import { boundedInput, declinedError, inspectionError, runRealTool, timedOutError, toolFailureOf } from "./tool-call";

export const DEFAULT_TIMEOUT_MS = 30 * 60_000;

/** The audience fields a question's spec takes, only those given (a spec without them reads as before). */
const audienceOf = ({ answerers, escalate }: Audience) => ({ ...(answerers && { answerers }), ...(escalate && { escalate }) });

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

export function digestOf(...parts: unknown[]): string {
  return createHash("sha256").update(canonicalJson(parts)).digest("hex").slice(0, 32);
}

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (err: Error) => void;
}

export function createRuntime(host: RuntimeHost): RunController {
  const abort = new AbortController();
  const newId = host.newId ?? randomUUID;
  const journal = new Map((host.journal ?? []).map((r) => [r.seq, r]));
  const questionWaiters = new Map<string, Waiter<Settlement>>();
  const callWaiters = new Map<number, Waiter<CallSettlement>>();
  const early = new Map<string, Settlement | { refused: { code: string; message: string } }>();
  const earlyCalls = new Map<number, CallSettlement>();
  let nextSeq = 0;
  let stepsInFlight = 0;
  let parked = false;
  let diverged: JournalDivergence | null = null;

  /** Marks an error as this run's, so a stray one can be attributed to it. */
  function own<E extends RuntimeError>(err: E): E {
    err.runId = host.runId;
    return err;
  }

  function send(message: ChildToParent) {
    if (parked) throw own(new RunParked());
    host.send(message);
  }

  function cancelledError(): RunCancelled {
    const reason: unknown = abort.signal.reason;
    return own(new RunCancelled(typeof reason === "string" ? reason : "The run was stopped."));
  }

  /** Takes the next journal position; a recorded entry there must be the same operation. */
  function claim<K extends JournalRecord["kind"]>(kind: K, digest: string, label: string) {
    if (parked) throw own(new RunParked());
    if (abort.signal.aborted) throw cancelledError();
    const seq = nextSeq++;
    const record = journal.get(seq);
    if (record && (record.kind !== kind || record.digest !== digest)) {
      diverged ??= own(new JournalDivergence(seq, `a ${record.kind}`, label));
      throw diverged;
    }
    return { seq, record: record as Extract<JournalRecord, { kind: K }> | undefined };
  }

  function waitForQuestion(questionId: string): Promise<Settlement> {
    const arrived = early.get(questionId);
    if (arrived) {
      early.delete(questionId);
      if ("refused" in arrived) return Promise.reject(own(new AskRefused(arrived.refused.code, arrived.refused.message)));
      return Promise.resolve(arrived);
    }
    return new Promise<Settlement>((resolve, reject) => questionWaiters.set(questionId, { resolve, reject })).finally(() => questionWaiters.delete(questionId));
  }

  /**
   * Claims the question's journal position (at once: a claim that fails throws here). `digestExtra`
   * joins the digest (an approval's tool and input).
   */
  function claimQuestion(spec: Omit<QuestionSpecInput, "approval">, digestExtra: unknown[] = []) {
    const digest = digestOf("question", spec.kind, spec.prompt, spec.options ?? [], spec.multi ?? false, spec.allowCustom ?? false, spec.replySchema ?? null, ...digestExtra);
    const claimed = claim("question", digest, `the question "${spec.prompt}"`);
    return { digest, ...claimed, turn: takeSendTurn() };
  }

  /**
   * Questions go out in the order their positions were claimed: a tool's approval waits for the
   * tool's checks on disk, and a question claimed after it does not overtake it (the cards show
   * in the order the function asked). A turn is taken at the claim and ends when its question is
   * sent, or when it will not be (recorded already, or refused before asking).
   */
  const sendTurns: Array<{ send: (() => void) | null; over: boolean }> = [];
  function takeSendTurn() {
    const turn = { send: null as (() => void) | null, over: false };
    sendTurns.push(turn);
    return turn;
  }
  function endSendTurn(turn: (typeof sendTurns)[number], send?: () => void): void {
    if (send) turn.send = send;
    else turn.over = true;
    while (sendTurns.length > 0 && (sendTurns[0]!.over || sendTurns[0]!.send)) sendTurns.shift()!.send?.();
  }

  /** Asks a claimed question, unless the journal has it: then its recorded settlement, or the wait for it. */
  function askClaimed(claimed: ReturnType<typeof claimQuestion>, spec: () => QuestionSpecInput): Promise<Settlement> {
    const { seq, digest, record, turn } = claimed;
    if (record) {
      endSendTurn(turn);
      return record.settlement ? Promise.resolve(record.settlement) : waitForQuestion(record.questionId);
    }
    const questionId = newId();
    const waiting = waitForQuestion(questionId);
    endSendTurn(turn, () => send({ type: "question.ask", runId: host.runId, seq, digest, questionId, spec: spec() as never }));
    return waiting;
  }

  function startQuestion(spec: QuestionSpecInput, digestExtra: unknown[] = []): Promise<Settlement> {
    return askClaimed(claimQuestion(spec, digestExtra), () => spec);
  }

  async function settlementFor(spec: QuestionSpecInput): Promise<Settlement> {
    return startQuestion(spec);
  }

  /** Runs a step at its claimed position (or returns its recorded output) and journals the result. */
  async function runStep<T>(seq: number, digest: string, name: string, record: { output: JsonValue } | undefined, fn: (ctx: StepContext) => Promise<T> | T): Promise<T> {
    if (record) return record.output as T;
    stepsInFlight++;
    try {
      const result = await fn({ idempotencyKey: `${host.runId}:${seq}` });
      // What replay returns is the JSON form: hand the same to the first run.
      const output = (result === undefined ? null : JSON.parse(JSON.stringify(result))) as JsonValue;
      send({ type: "step.record", runId: host.runId, seq, digest, name, output });
      return output as T;
    } finally {
      stepsInFlight--;
    }
  }

  const lookUpTool = host.findTool ?? findTool;
  const workspace = host.workspace ?? workspaceFolder();
  const toolContext: ToolContext = {
    workspace,
    signal: abort.signal,
    progress(text) {
      if (!parked) send({ type: "run.progress", runId: host.runId, text });
    },
  };

  /**
   * A tool call: two journal positions, claimed together before anything is awaited — the
   * approval, then the tool's step — so that concurrent calls keep their positions on replay
   * whichever approval is answered first. Then the real tool's checks on disk (not for an
   * approval the journal has: it was asked already), which build the preview. A declined call leaves its step
   * position unused; so does a call its checks refuse (and its approval's position).
   */
  async function tool<T>(name: string | Tool, input: unknown, impl: ((input: never, ctx: StepContext) => Promise<T> | T) | undefined, options: ToolOptions = {}): Promise<T> {
    if (typeof name !== "string" && !impl) throw new TypeError(`rt.tool(${name.name}, …) with a tool's definition needs its implementation.`);
    const t = typeof name === "string" ? lookUpTool(name) : name;
    if (!t) throw own(new UnknownTool(name as string, host.findTool ? [] : catalogue.map((c) => c.name)));
    const checked = t.inputSchema.safeParse(input);
    if (!checked.success) throw own(new ToolInputInvalid(t.name, describeZodError(checked.error)));
    const value = checked.data;
    const subject = t.subject(value);
    const timeoutMs = timeoutOf(options.timeoutMs);
    const fallback = options.fallback ?? "deny";
    const prompt = t.prompt?.(value) ?? `Use ${t.name} on ${clip(subject.replace(/\s+/g, " "), 200)}?`;
    const spec = { kind: "approval" as const, prompt, timeoutMs, owner: options.owner, ...audienceOf(options), ...(options.approvals && { approvals: options.approvals }) };
    const real = !impl;
    // A real tool whose approval stands on what it found (a file's content) journals that first, so
    // the tool can refuse to act on something changed since, even in a run resumed after a park.
    const stampDigest = digestOf("tool-stamp", t.name, value);
    const stampClaim = real && t.stamp ? claim("step", stampDigest, `the checks of the tool call ${t.name}`) : null;
    const question = claimQuestion(spec, [t.name, value]);
    const shown = boundedInput(value);
    let facts: unknown;
    let approved: JsonValue | undefined = stampClaim?.record?.output;
    let step: ReturnType<typeof claim<"step">>;
    try {
      step = claim("step", digestOf("tool", t.name, value), `the tool call ${t.name}`);
      // A caller that brings its own implementation works elsewhere: the workspace's checks do not apply.
      if (!question.record && t.inspect && real) {
        stepsInFlight++;
        try {
          facts = await t.inspect(value, toolContext);
        } catch (err) {
          const refused = inspectionError(t.name, subject, err);
          throw refused instanceof ToolDenied || refused instanceof ToolFailed ? own(refused) : refused;
        } finally {
          stepsInFlight--;
        }
        if (parked) throw own(new RunParked());
        if (abort.signal.aborted) throw cancelledError();
        if (stampClaim) {
          const stamp = t.stamp!(facts) ?? null;
          // Recorded before a crash cut the run off before its approval: asked now, it must be on the same.
          if (stampClaim.record && canonicalJson(stampClaim.record.output) !== canonicalJson(stamp)) {
            throw own(new ToolFailed(t.name, subject, `\`${clip(subject, 200)}\` changed while the run was interrupted: nothing was done. Call the tool again.`));
          }
          if (!stampClaim.record) await runStep(stampClaim.seq, stampDigest, clip(`${t.name} ${subject.replace(/\s+/g, " ")}: as found before asking`, 200), undefined, () => stamp);
          approved = stamp;
        }
      }
    } catch (err) {
      // Not asked after all: the questions claimed after it go out without waiting for it.
      endSendTurn(question.turn);
      throw err;
    }
    const settled = askClaimed(question, () => ({
      ...spec,
      approval: {
        tool: t.name,
        input: shown,
        preview: t.preview(value, facts),
        subject,
        subjectKind: t.subjectKind,
        cwd: t.workingFolder ? normaliseFolder(t.workingFolder(value)) : null,
        always: t.alwaysOptions(value),
        dangerous: t.dangerous,
        fallback,
        edit: approvalEdit(t, value, shown),
      } satisfies ApprovalSpecInput,
    }));
    const s = await settled;
    switch (s.outcome) {
      case "answered":
        break;
      case "declined":
        throw own(declinedError(t.name, subject, s));
      case "timed_out":
        if (fallback === "deny") throw own(timedOutError(t.name, subject, timeoutMs));
        break;
      case "cancelled":
      case "expired":
        throw own(new RunCancelled(s.feedback ?? `The approval "${prompt}" was ${s.outcome}.`));
    }
    if (parked) throw own(new RunParked());
    if (abort.signal.aborted) throw cancelledError();
    // "Edit and allow": the tool runs with the input the person edited (the server checked it against the same schema).
    const edited = s.outcome === "answered" && s.input ? t.inputSchema.safeParse(s.input) : null;
    if (edited && !edited.success) throw own(new ToolFailed(t.name, subject, `the edited input is not valid: ${describeZodError(edited.error)}`));
    const used = edited ? edited.data : value;
    const usedSubject = edited ? t.subject(used) : subject;
    if (edited) options.onEdited?.(used);
    const stepName = clip(`${t.name} ${usedSubject.replace(/\s+/g, " ")}`, 200);
    // What the checks found stands for the call they looked at: an edit to another subject is checked when it runs, not against them.
    const stamped = usedSubject === subject ? approved : undefined;
    const run = impl ? (ctx: StepContext) => impl(used as never, ctx) : () => runRealTool(t, used, toolContext, stamped) as Promise<T>;
    const output = await runStep(step.seq, digestOf("tool", t.name, value), stepName, step.record, run);
    if (!impl) {
      // A Stop while the tool ran: it was killed, the run ends.
      if (abort.signal.aborted) throw cancelledError();
      const failure = toolFailureOf(output);
      if (failure !== null) throw own(new ToolFailed(t.name, usedSubject, failure));
    }
    return output;
  }

  const timeoutOf = (t: number | null | undefined) => (t === undefined ? DEFAULT_TIMEOUT_MS : t);

  /** A question (not a confirm): the default when nobody can answer, else the person's outcome. */
  async function question(prompt: string, spec: Omit<QuestionSpecInput, "kind" | "prompt" | "default">, fallback: JsonValue | undefined): Promise<JsonValue> {
    const hasDefault = fallback !== undefined;
    if (!host.canAsk) {
      if (hasDefault) return fallback;
      throw own(new CannotAsk(prompt));
    }
    const s = await settlementFor({ kind: "question", prompt, ...spec, ...(hasDefault ? { default: fallback } : {}) });
    return outcomeOf(prompt, s, hasDefault, fallback);
  }

  async function ask(prompt: string, options: AskOptions = {}): Promise<string | string[]> {
    const spec = {
      options: options.options ?? [],
      multi: options.multi ?? false,
      allowCustom: options.allowCustom ?? false,
      detail: options.detail ?? null,
      timeoutMs: timeoutOf(options.timeoutMs),
      owner: options.owner,
      ...audienceOf(options),
    };
    return (await question(prompt, spec, options.default)) as string | string[];
  }

  function outcomeOf(prompt: string, s: Settlement, hasDefault: boolean, fallback: JsonValue | undefined): JsonValue {
    switch (s.outcome) {
      case "answered":
        return s.value;
      case "declined":
        throw own(new UserDeclined(s.feedback));
      case "timed_out":
        if (hasDefault) return fallback!;
        throw own(new AskTimeout(prompt));
      case "cancelled":
      case "expired":
        throw own(new RunCancelled(s.feedback ?? `The question "${prompt}" was ${s.outcome}.`));
    }
  }

  async function confirm(prompt: string, options: ConfirmOptions = {}): Promise<boolean> {
    const fallback = options.default ?? false;
    if (!host.canAsk) return fallback;
    const s = await settlementFor({
      kind: "confirm",
      prompt,
      detail: options.detail ?? null,
      timeoutMs: timeoutOf(options.timeoutMs),
      owner: options.owner,
      default: fallback,
      ...audienceOf(options),
    });
    switch (s.outcome) {
      case "answered":
        return s.value === true;
      case "declined":
        return false;
      case "timed_out":
        return fallback;
      case "cancelled":
      case "expired":
        throw own(new RunCancelled(s.feedback ?? `The question "${prompt}" was ${s.outcome}.`));
    }
  }

  async function form(message: string, schema: Record<string, unknown>, options: FormOptions = {}): Promise<FormResult> {
    const parsed = parseFormSchema(schema);
    if (!parsed.ok) throw own(new FormSchemaInvalid(message, parsed.error));
    const hasDefault = options.default !== undefined;
    if (hasDefault) {
      const checked = validateForm(parsed.schema, options.default);
      if (!checked.ok) throw own(new FormSchemaInvalid(message, `its default does not fit: ${describeFormErrors(parsed.schema, checked.errors)}`));
    }
    if (!host.canAsk) {
      if (hasDefault) return { action: "accept", content: options.default! };
      throw own(new CannotAsk(message));
    }
    const s = await settlementFor({
      kind: "question",
      prompt: message,
      detail: options.detail ?? null,
      timeoutMs: timeoutOf(options.timeoutMs),
      replySchema: schema,
      owner: options.owner,
      ...(hasDefault ? { default: options.default } : {}),
      ...audienceOf(options),
    });
    switch (s.outcome) {
      case "answered":
        return { action: "accept", content: s.value as FormContent };
      case "declined":
        return s.feedback ? { action: "decline", feedback: s.feedback } : { action: "decline" };
      case "timed_out":
        return hasDefault ? { action: "accept", content: options.default! } : { action: "cancel" };
      case "cancelled":
      case "expired":
        throw own(new RunCancelled(s.feedback ?? `The form "${message}" was ${s.outcome}.`));
    }
  }

  const rt: Runtime = {
    runId: host.runId,
    sessionId: host.sessionId,
    signal: abort.signal,
    ask: ask as Runtime["ask"],
    async askJson<T extends JsonValue>(prompt: string, options: AskJsonOptions): Promise<T> {
      const spec = { detail: options.detail ?? null, timeoutMs: timeoutOf(options.timeoutMs), replySchema: options.schema, owner: options.owner, ...audienceOf(options) };
      return (await question(prompt, spec, options.default)) as T;
    },
    confirm,
    form: form as Runtime["form"],
    canAsk: () => host.canAsk && !abort.signal.aborted,
    async askUser(prompt, options = {}) {
      try {
        return (await ask(prompt, { ...options, multi: false })) as string;
      } catch (err) {
        if (err instanceof UserDeclined || err instanceof AskTimeout || err instanceof CannotAsk) return null;
        throw err;
      }
    },
    async step<T>(name: string, fn: (ctx: StepContext) => Promise<T> | T): Promise<T> {
      const digest = digestOf("step", name);
      const { seq, record } = claim("step", digest, `the step "${name}"`);
      return runStep(seq, digest, name, record, fn);
    },
    tool,
    async call<T extends JsonValue>(functionName: string, input: JsonValue = null): Promise<T> {
      const digest = digestOf("call", functionName, input);
      const { seq, record } = claim("call", digest, `a call of ${functionName}`);
      let settlement = record?.settlement ?? earlyCalls.get(seq) ?? null;
      earlyCalls.delete(seq);
      if (!settlement) {
        const waiting = new Promise<CallSettlement>((resolve, reject) => callWaiters.set(seq, { resolve, reject })).finally(() => callWaiters.delete(seq));
        if (!record) send({ type: "run.call", runId: host.runId, seq, digest, functionName, input });
        settlement = await waiting;
      }
      if (settlement.status === "succeeded") return settlement.result as T;
      throw own(new ChildRunFailed(functionName, settlement.status, settlement.error));
    },
    say(text) {
      const digest = digestOf("say", text);
      const { seq, record } = claim("say", digest, "a chat message");
      if (!record) send({ type: "run.say", runId: host.runId, seq, digest, text });
    },
    reply() {
      const digest = digestOf("reply");
      const { seq, record } = claim("say", digest, "a streamed reply");
      if (record) {
        // Replay: the reply was stored before; nothing is sent again.
        const recorded = record.text ?? "";
        return {
          append() {},
          end: () => recorded,
          get text() {
            return recorded;
          },
        };
      }
      let text = "";
      let ended = false;
      return {
        append(delta: string) {
          if (ended || parked || typeof delta !== "string" || delta.length === 0) return;
          const piece = delta.slice(0, MAX_SAY_CHARS - text.length);
          if (piece.length === 0) return;
          text += piece;
          host.send({ type: "run.say.delta", runId: host.runId, seq, delta: piece });
        },
        end(options: { stopped?: boolean } = {}) {
          if (ended) return text;
          ended = true;
          if (text.length > 0 && !parked) {
            host.send({ type: "run.say", runId: host.runId, seq, digest, text, ...(options.stopped ? { stopped: true } : {}) });
          }
          return text;
        },
        get text() {
          return text;
        },
      };
    },
    progress(text) {
      send({ type: "run.progress", runId: host.runId, text });
    },
    sleep(ms) {
      return new Promise((resolve, reject) => {
        if (abort.signal.aborted) return reject(cancelledError());
        const onAbort = () => {
          clearTimeout(timer);
          reject(cancelledError());
        };
        const timer = setTimeout(() => {
          abort.signal.removeEventListener("abort", onAbort);
          if (parked) reject(own(new RunParked()));
          else resolve();
        }, ms);
        abort.signal.addEventListener("abort", onAbort, { once: true });
      });
    },
    withOwner: (owner) => ownedBy(owner),
  };

  /** The same runtime whose questions default to another owner label. */
  function ownedBy(owner: string): Runtime {
    return {
      ...rt,
      ask: ((prompt: string, options: AskOptions = {}) => rt.ask(prompt, { owner, ...options })) as Runtime["ask"],
      askJson: (prompt, options) => rt.askJson(prompt, { owner, ...options }),
      confirm: (prompt, options = {}) => rt.confirm(prompt, { owner, ...options }),
      form: (message: string, schema: Record<string, unknown>, options: FormOptions = {}) => rt.form(message, schema, { owner, ...options } as never),
      askUser: (prompt, options = {}) => rt.askUser(prompt, { owner, ...options }),
      tool: ((name: string | Tool, input: unknown, impl: never, options: ToolOptions = {}) => rt.tool(name as never, input as never, impl, { owner, ...options })) as Runtime["tool"],
    };
  }

  return {
    rt,
    settle(questionId, settlement) {
      const waiter = questionWaiters.get(questionId);
      if (waiter) waiter.resolve(settlement);
      else if (!parked) early.set(questionId, settlement);
    },
    refuse(questionId, error) {
      const waiter = questionWaiters.get(questionId);
      if (waiter) waiter.reject(own(new AskRefused(error.code, error.message)));
      else if (!parked) early.set(questionId, { refused: error });
    },
    settleCall(seq, settlement) {
      const waiter = callWaiters.get(seq);
      if (waiter) waiter.resolve(settlement);
      else if (!parked) earlyCalls.set(seq, settlement);
    },
    cancel(reason) {
      if (abort.signal.aborted) return;
      abort.abort(reason);
      for (const waiter of questionWaiters.values()) waiter.reject(cancelledError());
      for (const waiter of callWaiters.values()) waiter.reject(cancelledError());
    },
    park() {
      if (stepsInFlight > 0) return false;
      parked = true;
      // The waiting promises are dropped unsettled: with nothing referring to them, they and the
      // function's suspended frames are garbage. Replay brings the run back.
      questionWaiters.clear();
      callWaiters.clear();
      early.clear();
      earlyCalls.clear();
      return true;
    },
    divergence: () => diverged,
    isParked: () => parked,
    pendingCount: () => questionWaiters.size + callWaiters.size,
  };
}
