export { createRuntime, DEFAULT_TIMEOUT_MS, digestOf } from "./runtime";
export type { AskJsonOptions, AskOptions, CallSettlement, ConfirmOptions, Runtime, RunController, Settlement } from "./runtime";
export { AskRefused, AskTimeout, CannotAsk, ChildRunFailed, JournalDivergence, RunCancelled, RunParked, UserDeclined } from "./errors";
export { defineAgentFunction } from "./define";
export type { AgentFunction } from "./define";
