export { createRuntime, DEFAULT_TIMEOUT_MS, digestOf } from "./runtime";
export type {
  AskJsonOptions,
  AskOptions,
  FormOptions,
  FormResult,
  CallSettlement,
  ConfirmOptions,
  Runtime,
  RunController,
  Settlement,
  StepContext,
  ToolInputOf,
  ToolOptions,
  ToolParsedInputOf,
  ToolResultOf,
} from "./runtime";
export {
  AgentError,
  AskRefused,
  AskTimeout,
  CannotAsk,
  FormSchemaInvalid,
  ChildRunFailed,
  JournalDivergence,
  RunCancelled,
  RunParked,
  RuntimeError,
  ToolDenied,
  ToolFailed,
  ToolInputInvalid,
  UnknownTool,
  UserDeclined,
} from "./errors";
export { defineAgentFunction, isAgentFunction } from "./define";
export type { AgentFunction, AgentFunctionDefinition } from "./define";
