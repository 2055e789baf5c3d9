export { createRuntime, DEFAULT_TIMEOUT_MS, digestOf } from "./runtime";
export type { AskJsonOptions, AskOptions, CallSettlement, ConfirmOptions, Runtime, RunController, Settlement } from "./runtime";
export { AgentError, AskRefused, AskTimeout, CannotAsk, ChildRunFailed, JournalDivergence, RunCancelled, RunParked, RuntimeError, UserDeclined } from "./errors";
export { defineAgentFunction } from "./define";
export type { AgentFunction } from "./define";
