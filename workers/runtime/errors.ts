/**
 * The runtime's own errors. Their messages are written for the person: a run that fails with one
 * shows its message. `runId` says which run threw it (the worker attributes stray errors by it).
 */
export abstract class RuntimeError extends Error {
  abstract readonly code: string;
  runId?: string;
}

/**
 * Throw it from an agent function to end the run with a message for the person: it is shown as
 * written. Any other error shows only that the function stopped unexpectedly (its text and
 * stack go to the server's log).
 */
export class AgentError extends RuntimeError {
  readonly code = "agent_error";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AgentError";
  }
}

/** Thrown by `ask` when the person declines; `feedback` is what they wrote, if anything. */
export class UserDeclined extends RuntimeError {
  readonly code = "user_declined";
  constructor(readonly feedback: string | null) {
    super(feedback ? `The question was declined: ${feedback}` : "The question was declined.");
    this.name = "UserDeclined";
  }
}

/** Thrown by `ask` when a question without a default times out. */
export class AskTimeout extends RuntimeError {
  readonly code = "ask_timeout";
  constructor(readonly prompt: string) {
    super(`Nobody answered "${prompt}" in time.`);
    this.name = "AskTimeout";
  }
}

/** Thrown by a pending `ask` when the run is stopped, or the question is otherwise ended. */
export class RunCancelled extends RuntimeError {
  readonly code = "run_cancelled";
  constructor(reason: string, runId?: string) {
    super(reason);
    this.name = "RunCancelled";
    this.runId = runId;
  }
}

/** Thrown by `ask` in a run where nobody can answer (see `canAsk`) when no default is given. */
export class CannotAsk extends RuntimeError {
  readonly code = "cannot_ask";
  constructor(readonly prompt: string) {
    super(`Nobody can answer "${prompt}" in this run.`);
    this.name = "CannotAsk";
  }
}

/**
 * Thrown by `ask` when the server refuses the question: the run's policy (too many questions,
 * too long a prompt) or an unusable reply schema. `code` says which.
 */
export class AskRefused extends RuntimeError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "AskRefused";
  }
}

/** Thrown by `call` when the child run did not succeed. */
export class ChildRunFailed extends RuntimeError {
  readonly code = "child_run_failed";
  constructor(
    readonly functionName: string,
    readonly status: "failed" | "cancelled",
    reason: string | null,
  ) {
    super(`${functionName} ${status === "failed" ? "failed" : "was cancelled"}${reason ? `: ${reason}` : "."}`);
    this.name = "ChildRunFailed";
  }
}

/**
 * The function did something other than what its journal recorded at this point: replaying
 * further would guess. The run fails with this error, whatever the function catches.
 */
export class JournalDivergence extends RuntimeError {
  readonly code = "journal_divergence";
  constructor(seq: number, recorded: string, attempted: string) {
    super(
      `The function diverged from its journal at step ${seq}: it recorded ${recorded} there, but now did ${attempted}. Agent functions must do the same steps and ask the same questions in the same order.`,
    );
    this.name = "JournalDivergence";
  }
}

/** Thrown into code that keeps running after its run was parked (a timer, say): it must not act. */
export class RunParked extends RuntimeError {
  readonly code = "run_parked";
  constructor(runId?: string) {
    super("The run was parked; it continues when it is resumed.");
    this.name = "RunParked";
    this.runId = runId;
  }
}

/** Thrown by `tool` for a name the tool catalogue does not have. */
export class UnknownTool extends RuntimeError {
  readonly code = "unknown_tool";
  constructor(
    readonly tool: string,
    known: readonly string[],
  ) {
    super(`There is no tool named "${tool.slice(0, 100)}"${known.length ? ` (the tools are ${known.join(", ")})` : ""}.`);
    this.name = "UnknownTool";
  }
}

/** Thrown by `tool` when the input does not fit the tool's schema: nothing was asked, nothing ran. */
export class ToolInputInvalid extends RuntimeError {
  readonly code = "tool_input_invalid";
  constructor(
    readonly tool: string,
    /** What is wrong with the input, readable. */
    readonly issues: string,
  ) {
    super(`Invalid input for ${tool}: ${issues}`);
    this.name = "ToolInputInvalid";
  }
}

/**
 * Thrown by `tool` when the tool may not run: a person rejected it (`reason` "rejected", with
 * their `feedback` if they wrote any), a rule denied it or nobody could approve it ("denied", the
 * server's text as the message), or nobody answered and the approval fell back to deny
 * ("timed_out"). The message is written for the function or a model to read and change course.
 */
export class ToolDenied extends RuntimeError {
  readonly code = "tool_denied";
  constructor(
    readonly tool: string,
    /** What the call was about: its command, its path … */
    readonly subject: string,
    readonly reason: "rejected" | "denied" | "timed_out",
    /** What the person wrote when rejecting it; null when they wrote nothing, or no person decided. */
    readonly feedback: string | null,
    message: string,
  ) {
    super(message);
    this.name = "ToolDenied";
  }
}

/**
 * Thrown by `tool` when a catalogue tool's real implementation ran and failed in a way the caller
 * can act on: a file that does not exist, an `old` text found twice, a path that became a symlink
 * out of the workspace after the approval. The message says what, for the function or a model.
 */
export class ToolFailed extends RuntimeError {
  readonly code = "tool_failed";
  constructor(
    readonly tool: string,
    readonly subject: string,
    message: string,
  ) {
    super(message);
    this.name = "ToolFailed";
  }
}

/** Thrown by `form` when its schema is not a flat form (or its default does not fit it): nothing was asked. */
export class FormSchemaInvalid extends RuntimeError {
  readonly code = "form_schema_invalid";
  constructor(
    readonly prompt: string,
    /** What is wrong with the schema, readable: "properties.nights: minimum is above maximum". */
    readonly issues: string,
  ) {
    super(`The form "${prompt.slice(0, 100)}" cannot be asked: ${issues}`);
    this.name = "FormSchemaInvalid";
  }
}
