import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { createScriptedModel } from "./scripted-model";

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

export type Env = Record<string, string | undefined>;

/**
 * The provider from the environment: the offline scripted model by default; an OpenAI-compatible
 * server when PARLEY_PROVIDER=openai or OPENAI_BASE_URL is set (OPENAI_API_KEY, PARLEY_MODEL).
 */
export function selectModel(env: Env = process.env): ModelChoice {
  const wanted = env.PARLEY_PROVIDER?.trim().toLowerCase();
  if (wanted === "openai" || (wanted !== "scripted" && env.OPENAI_BASE_URL)) {
    const baseURL = (env.OPENAI_BASE_URL?.trim() || "https://api.openai.com/v1").replace(/\/+$/, "");
    const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
    const modelId = env.PARLEY_MODEL?.trim() || "gpt-4o-mini";
    const provider = createOpenAICompatible({ name: "openai", baseURL, apiKey, includeUsage: true });
    return { provider: `openai-compatible ${modelId} at ${baseURL}`, model: provider.chatModel(modelId), apiKey, maxRetries: retriesOf(env, 2) };
  }
  const delay = Number(env.PARLEY_SCRIPTED_DELAY_MS ?? 12);
  return { provider: "scripted", model: createScriptedModel({ chunkDelayMs: Number.isFinite(delay) && delay >= 0 ? delay : 12 }), maxRetries: 0 };
}

function retriesOf(env: Env, fallback: number): number {
  const n = Number(env.PARLEY_MODEL_RETRIES);
  return Number.isInteger(n) && n >= 0 && n <= 5 ? n : fallback;
}
