export { runAgentLoop, MAX_STEPS, SYSTEM_PROMPT } from "./loop";
export type { AgentLoopOptions, AgentLoopResult, HistoryMessage, ModelStep, ReplyWriter } from "./loop";
export { selectModel } from "./provider";
export type { ModelChoice } from "./provider";
export { createScriptedModel, CAPABILITIES } from "./scripted-model";
export { providerError, redact } from "./errors";
export { modelTools, ClarifyInputSchema } from "./tools";
export { runToolCall } from "./tool-calls";
