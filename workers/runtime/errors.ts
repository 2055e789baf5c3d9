/** Thrown by `ask` when the person declines; `feedback` is what they wrote, if anything. */
export class UserDeclined extends Error {
  readonly code = "user_declined";
  constructor(readonly feedback: string | null) {
    super(feedback ? `The question was declined: ${feedback}` : "The question was declined.");
    this.name = "UserDeclined";
  }
}

/** Thrown by `ask` when a question without a default times out. */
export class AskTimeout extends Error {
  readonly code = "ask_timeout";
  constructor(readonly prompt: string) {
    super(`Nobody answered "${prompt}" in time.`);
    this.name = "AskTimeout";
  }
}

/** Thrown by a pending `ask` when the run is stopped, or the question is otherwise ended. */
export class RunCancelled extends Error {
  readonly code = "run_cancelled";
  constructor(reason: string) {
    super(reason);
    this.name = "RunCancelled";
  }
}

/** Thrown by `ask` in a run where nobody can answer (see `canAsk`) when no default is given. */
export class CannotAsk extends Error {
  readonly code = "cannot_ask";
  constructor(readonly prompt: string) {
    super(`Nobody can answer "${prompt}" in this run.`);
    this.name = "CannotAsk";
  }
}
