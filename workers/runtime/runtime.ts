import { randomUUID } from "node:crypto";
import type { ChildToParent } from "../../lib/protocol/ipc";
import type { AnswerValue, QuestionOutcome, QuestionSpecInput } from "../../lib/protocol/question";
import { AskTimeout, CannotAsk, RunCancelled, UserDeclined } from "./errors";

export const DEFAULT_TIMEOUT_MS = 30 * 60_000;

export interface AskOptions {
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
}

export interface ConfirmOptions {
  detail?: string;
  timeoutMs?: number | null;
  /** Returned on timeout; false unless given. */
  default?: boolean;
}

/** How a question ended, as the runtime hands it to `ask`. */
export interface Settlement {
  outcome: QuestionOutcome;
  value: AnswerValue | null;
  feedback: string | null;
}

export interface Runtime {
  readonly runId: string;
  readonly sessionId: string;
  /** Aborted when the run is stopped. */
  readonly signal: AbortSignal;
  ask(prompt: string, options: AskOptions & { multi: true }): Promise<string[]>;
  ask(prompt: string, options?: AskOptions): Promise<string>;
  confirm(prompt: string, options?: ConfirmOptions): Promise<boolean>;
  /** false when nobody can answer (a headless run). */
  canAsk(): boolean;
  /** Free text, or null on decline or timeout. */
  askUser(prompt: string, options?: Omit<AskOptions, "default">): Promise<string | null>;
  /** Adds an agent message to the chat. */
  say(text: string): void;
  /** Shows what the run is doing now (null clears it). */
  progress(text: string | null): void;
  /** Resolves after `ms`, or rejects with RunCancelled when the run is stopped. */
  sleep(ms: number): Promise<void>;
}

export interface RuntimeHost {
  runId: string;
  sessionId: string;
  canAsk: boolean;
  send(message: ChildToParent): void;
  newId?: () => string;
}

/** The runtime of one run, plus the two entry points its host drives: settle and cancel. */
export interface RunController {
  rt: Runtime;
  /** Delivers a settled question from the answer queue; unknown ids are a harmless no-op. */
  settle(questionId: string, settlement: Settlement): boolean;
  /** Ends every pending ask with RunCancelled and aborts the signal. */
  cancel(reason: string): void;
  pendingCount(): number;
}

export function createRuntime(host: RuntimeHost): RunController {
  const abort = new AbortController();
  const pending = new Map<string, (s: Settlement) => void>();
  const newId = host.newId ?? randomUUID;

  function cancelledError(): RunCancelled {
    const reason = abort.signal.reason;
    return new RunCancelled(typeof reason === "string" ? reason : "The run was stopped.");
  }

  async function waitFor(spec: QuestionSpecInput): Promise<Settlement> {
    if (abort.signal.aborted) throw cancelledError();
    const questionId = newId();
    const settled = new Promise<Settlement>((resolve) => pending.set(questionId, resolve));
    try {
      host.send({ type: "question.ask", runId: host.runId, questionId, spec: spec as never });
      return await settled;
    } finally {
      pending.delete(questionId);
    }
  }

  async function ask(prompt: string, options: AskOptions = {}): Promise<string | string[]> {
    const hasDefault = options.default !== undefined;
    if (!host.canAsk) {
      if (hasDefault) return options.default!;
      throw new CannotAsk(prompt);
    }
    const s = await waitFor({
      kind: "question",
      prompt,
      options: options.options ?? [],
      multi: options.multi ?? false,
      allowCustom: options.allowCustom ?? false,
      detail: options.detail ?? null,
      timeoutMs: options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs,
      ...(hasDefault ? { default: options.default } : {}),
    });
    switch (s.outcome) {
      case "answered":
        return s.value as string | string[];
      case "declined":
        throw new UserDeclined(s.feedback);
      case "timed_out":
        if (hasDefault) return options.default!;
        throw new AskTimeout(prompt);
      case "cancelled":
      case "expired":
        throw new RunCancelled(s.feedback ?? `The question "${prompt}" was ${s.outcome}.`);
    }
  }

  async function confirm(prompt: string, options: ConfirmOptions = {}): Promise<boolean> {
    const fallback = options.default ?? false;
    if (!host.canAsk) return fallback;
    const s = await waitFor({
      kind: "confirm",
      prompt,
      detail: options.detail ?? null,
      timeoutMs: options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs,
      default: fallback,
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
        throw new RunCancelled(s.feedback ?? `The question "${prompt}" was ${s.outcome}.`);
    }
  }

  const rt: Runtime = {
    runId: host.runId,
    sessionId: host.sessionId,
    signal: abort.signal,
    ask: ask as Runtime["ask"],
    confirm,
    canAsk: () => host.canAsk && !abort.signal.aborted,
    async askUser(prompt, options = {}) {
      try {
        return (await ask(prompt, { ...options, multi: false })) as string;
      } catch (err) {
        if (err instanceof UserDeclined || err instanceof AskTimeout || err instanceof CannotAsk) return null;
        throw err;
      }
    },
    say(text) {
      host.send({ type: "run.say", runId: host.runId, text });
    },
    progress(text) {
      host.send({ type: "run.progress", runId: host.runId, text });
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
          resolve();
        }, ms);
        abort.signal.addEventListener("abort", onAbort, { once: true });
      });
    },
  };

  return {
    rt,
    settle(questionId, settlement) {
      const resolve = pending.get(questionId);
      if (!resolve) return false;
      resolve(settlement);
      return true;
    },
    cancel(reason) {
      if (abort.signal.aborted) return;
      abort.abort(reason);
      for (const resolve of pending.values()) resolve({ outcome: "cancelled", value: null, feedback: reason });
    },
    pendingCount: () => pending.size,
  };
}
