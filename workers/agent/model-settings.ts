/**
 * Which model chat turns use, read from the environment in one place: the agent builds its model
 * from it and the server's start-up line says it. With nothing configured the server looks for a
 * model server on this machine once, at start (modelAtStart), and hands its choice to the workers
 * in their environment (modelEnv).
 */
import type { ModelInfo } from "../../lib/protocol/model";
import { localModelCandidates, probeLocalModels, type LocalModel } from "./local-model-probe";

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
      /** Found on this machine at start-up, no variable chose it: the server's name (null: it did not say). */
      found?: { server: string | null };
    };

export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

/** How the offline script says how to connect a real model: its replies, the header's tooltip. */
export const OFFLINE_HINT = "Offline script — start Ollama or set OPENAI_BASE_URL for a real model (docs/models.md)";

/** What the start-up line adds when no variable chose the model. */
const SCRIPTED_HINT = "PARLEY_MODEL=scripted to use the offline script";

/**
 * The model the environment chooses: the offline script for PARLEY_MODEL=scripted or
 * PARLEY_PROVIDER=scripted; an OpenAI-compatible server for PARLEY_PROVIDER=openai or
 * OPENAI_BASE_URL (OPENAI_API_KEY, PARLEY_MODEL, PARLEY_MODEL_RETRIES), or OpenAI's API for
 * OPENAI_API_KEY alone. Null when nothing chooses.
 */
export function configuredModel(env: Env = process.env): ModelSettings | null {
  const wanted = env.PARLEY_PROVIDER?.trim().toLowerCase();
  const set = (name: string) => Boolean(env[name]?.trim());
  if (wanted === "scripted" || isScripted(env.PARLEY_MODEL)) return scripted(env);
  if (wanted !== "openai" && !set("OPENAI_BASE_URL") && !set("OPENAI_API_KEY")) return null;
  const chosenBy = ["PARLEY_PROVIDER", "OPENAI_BASE_URL", "PARLEY_MODEL"].filter(set);
  return {
    provider: "openai",
    modelId: env.PARLEY_MODEL?.trim() || DEFAULT_OPENAI_MODEL,
    baseURL: (env.OPENAI_BASE_URL?.trim() || DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, ""),
    apiKey: env.OPENAI_API_KEY?.trim() || undefined,
    maxRetries: retriesOf(env, 2),
    from: wanted === "openai" || set("OPENAI_BASE_URL") ? chosenBy : ["OPENAI_API_KEY", ...chosenBy],
  };
}

/** The model chat turns use: what the environment chooses, else the offline script. */
export function modelSettings(env: Env = process.env): ModelSettings {
  return configuredModel(env) ?? scripted(env);
}

/**
 * The server's choice at start-up: what the environment chooses; with nothing chosen, a model
 * server on this machine (PARLEY_LOCAL_MODELS, the usual ports; at most PROBE_BUDGET_MS), else
 * the offline script. Throws on a PARLEY_LOCAL_MODELS that names no loopback address.
 */
export async function modelAtStart(env: Env = process.env, probe: typeof probeLocalModels = probeLocalModels): Promise<ModelSettings> {
  const configured = configuredModel(env);
  if (configured) return configured;
  const local = await probe(localModelCandidates(env.PARLEY_LOCAL_MODELS), { prefer: env.PARLEY_MODEL });
  return local ? foundSettings(local, env) : scripted(env);
}

function foundSettings({ baseURL, modelId, server }: LocalModel, env: Env): ModelSettings {
  return { provider: "openai", modelId, baseURL, maxRetries: retriesOf(env, 2), from: [], found: { server } };
}

/** The variables that make a worker's modelSettings the server's choice (a found model included). */
export function modelEnv(settings: ModelSettings): Env {
  if (settings.provider === "scripted") return { PARLEY_PROVIDER: "scripted" };
  return { PARLEY_PROVIDER: "openai", OPENAI_BASE_URL: settings.baseURL, PARLEY_MODEL: settings.modelId };
}

/** What the chat's header shows: "llama3.2 · Ollama", "gpt-4o-mini · OpenAI", "Offline script". */
export function modelInfo(settings: ModelSettings): ModelInfo {
  if (settings.provider === "scripted") return { label: "Offline script", detail: OFFLINE_HINT, scripted: true };
  const host = hostOf(settings.baseURL);
  const where = settings.found ? (settings.found.server ?? host) : settings.baseURL === DEFAULT_OPENAI_BASE_URL ? "OpenAI" : host;
  return { label: `${settings.modelId} · ${where}`, detail: `The chat's model: ${modelOn(settings)}`, scripted: false };
}

function scripted(env: Env): ModelSettings {
  const delay = Number(env.PARLEY_SCRIPTED_DELAY_MS ?? 12);
  return { provider: "scripted", chunkDelayMs: Number.isFinite(delay) && delay >= 0 ? delay : 12 };
}

const isScripted = (model: string | undefined) => model?.trim().toLowerCase() === "scripted";

/** host:port of a URL, never its credentials or path. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "an unreadable address";
  }
}

/** A URL without its credentials: what the header may show anyone signed in. */
function withoutCredentials(url: string): string {
  try {
    const shown = new URL(url);
    shown.username = shown.password = "";
    return shown.href.replace(/\/+$/, "");
  } catch {
    return "an unreadable address";
  }
}

/** "llama3.2 on Ollama at 127.0.0.1:11434" or "gpt-4o-mini at https://api.openai.com/v1". */
function modelOn(settings: Extract<ModelSettings, { provider: "openai" }>): string {
  if (!settings.found) return `${settings.modelId} at ${withoutCredentials(settings.baseURL)}`;
  return `${settings.modelId} on ${settings.found.server ?? "an OpenAI-compatible server"} at ${hostOf(settings.baseURL)}`;
}

/** "openai-compatible gpt-4o-mini at https://…" or "scripted": how error messages name the provider. */
export function providerName(settings: ModelSettings): string {
  return settings.provider === "scripted" ? "scripted" : `openai-compatible ${settings.modelId} at ${settings.baseURL}`;
}

/**
 * The start-up line: "Model: scripted (offline…", "Model: llama3.2 on Ollama at 127.0.0.1:11434 — …"
 * or "Model: openai-compatible gpt-4o-mini at … (from PARLEY_MODEL, OPENAI_BASE_URL; …)".
 */
export function describeModel(settings: ModelSettings): string {
  if (settings.provider === "scripted") return "Model: scripted (offline, no key needed) — start Ollama or set OPENAI_BASE_URL for a real model (docs/models.md)";
  if (settings.found) return `Model: ${modelOn(settings)} — ${SCRIPTED_HINT}`;
  if (settings.from[0] === "OPENAI_API_KEY") return `Model: ${providerName(settings)} (from ${settings.from.join(", ")}) — ${SCRIPTED_HINT}`;
  const key = settings.apiKey ? "with OPENAI_API_KEY" : "no OPENAI_API_KEY set";
  return `Model: ${providerName(settings)} (from ${settings.from.join(", ")}; ${key})`;
}

function retriesOf(env: Env, fallback: number): number {
  const n = Number(env.PARLEY_MODEL_RETRIES);
  return env.PARLEY_MODEL_RETRIES?.trim() && Number.isInteger(n) && n >= 0 && n <= 5 ? n : fallback;
}
