export { createRuntime, DEFAULT_TIMEOUT_MS } from "./runtime";
export type { AskOptions, ConfirmOptions, Runtime, RunController, Settlement } from "./runtime";
export { AskTimeout, CannotAsk, RunCancelled, UserDeclined } from "./errors";
export { defineAgentFunction } from "./define";
export type { AgentFunction } from "./define";
