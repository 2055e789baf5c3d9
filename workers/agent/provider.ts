import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { createScriptedModel } from "./scripted-model";
import { modelSettings, providerName, type Env } from "./model-settings";

/** The model a chat turn talks to, and what its errors may mention. */
export interface ModelChoice {
  /** "scripted" or "openai": shown in error messages. */
  provider: string;
  model: LanguageModelV3;
  /** Masked in every message and log line. */
  apiKey?: string;
  /** Retries of a failed call (429, 5xx, unreachable) by the SDK. */
  maxRetries: number;
}

/** The model chat turns use, built from ./model-settings (the one reading of the environment). */
export function selectModel(env: Env = process.env, { retry = false }: { retry?: boolean } = {}): ModelChoice {
  const settings = modelSettings(env);
  if (settings.provider === "scripted") return { provider: providerName(settings), model: createScriptedModel({ chunkDelayMs: settings.chunkDelayMs, retry }), maxRetries: 0 };
  const { baseURL, apiKey, modelId, maxRetries } = settings;
  const provider = createOpenAICompatible({ name: "openai", baseURL, apiKey, includeUsage: true });
  return { provider: providerName(settings), model: provider.chatModel(modelId), apiKey, maxRetries };
}
