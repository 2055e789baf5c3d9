/**
 * Which model chat turns use, read from the environment in one place: the agent builds its model
 * from it and the server's start-up line says it.
 */
export type Env = Record<string, string | undefined>;

export type ModelSettings =
  | { provider: "scripted"; chunkDelayMs: number }
  | {
      provider: "openai";
      modelId: string;
      baseURL: string;
      /** Masked in every message and log line; never printed. */
      apiKey?: string;
      /** Retries of a failed call (429, 5xx, unreachable) by the SDK. */
      maxRetries: number;
      /** The variables that chose it, for the start-up line. */
      from: string[];
    };

export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

/**
 * The offline scripted model by default; an OpenAI-compatible server when PARLEY_PROVIDER=openai or
 * OPENAI_BASE_URL is set (OPENAI_API_KEY, PARLEY_MODEL, PARLEY_MODEL_RETRIES).
 */
export function modelSettings(env: Env = process.env): ModelSettings {
  const wanted = env.PARLEY_PROVIDER?.trim().toLowerCase();
  if (wanted === "openai" || (wanted !== "scripted" && env.OPENAI_BASE_URL?.trim())) {
    const set = (name: string) => Boolean(env[name]?.trim());
    return {
      provider: "openai",
      modelId: env.PARLEY_MODEL?.trim() || DEFAULT_OPENAI_MODEL,
      baseURL: (env.OPENAI_BASE_URL?.trim() || DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, ""),
      apiKey: env.OPENAI_API_KEY?.trim() || undefined,
      maxRetries: retriesOf(env, 2),
      from: ["PARLEY_PROVIDER", "OPENAI_BASE_URL", "PARLEY_MODEL"].filter(set),
    };
  }
  const delay = Number(env.PARLEY_SCRIPTED_DELAY_MS ?? 12);
  return { provider: "scripted", chunkDelayMs: Number.isFinite(delay) && delay >= 0 ? delay : 12 };
}

/** "openai-compatible gpt-4o-mini at https://…" or "scripted": how error messages name the provider. */
export function providerName(settings: ModelSettings): string {
  return settings.provider === "scripted" ? "scripted" : `openai-compatible ${settings.modelId} at ${settings.baseURL}`;
}

/** The start-up line: "Model: scripted (offline)…" or "Model: openai-compatible gpt-4o-mini at … (from PARLEY_MODEL, OPENAI_BASE_URL)". */
export function describeModel(settings: ModelSettings): string {
  if (settings.provider === "scripted") return "Model: scripted (offline, no key needed; set OPENAI_BASE_URL or PARLEY_PROVIDER=openai for a real model)";
  const key = settings.apiKey ? "with OPENAI_API_KEY" : "no OPENAI_API_KEY set";
  return `Model: ${providerName(settings)} (from ${settings.from.join(", ")}; ${key})`;
}

function retriesOf(env: Env, fallback: number): number {
  const n = Number(env.PARLEY_MODEL_RETRIES);
  return env.PARLEY_MODEL_RETRIES?.trim() && Number.isInteger(n) && n >= 0 && n <= 5 ? n : fallback;
}
