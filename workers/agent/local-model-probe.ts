/**
 * Finds a model server on this machine at start-up, when none is configured: Ollama, LM Studio or
 * llama.cpp's server on their usual ports (or the addresses PARLEY_LOCAL_MODELS names), within a
 * fixed time, on loopback only.
 */

/** Ollama, LM Studio, llama.cpp's server: their usual OpenAI-compatible addresses, in the order they are preferred. */
export const DEFAULT_LOCAL_MODELS = ["http://127.0.0.1:11434/v1", "http://127.0.0.1:1234/v1", "http://127.0.0.1:8080/v1"];

/** All of the probe, every candidate at once: start-up waits no longer than this. */
export const PROBE_BUDGET_MS = 300;

/** Models asked about (Ollama's /api/show) on one server: the rest go unasked. */
const MAX_SHOWN = 12;

export interface LocalModel {
  /** The OpenAI-compatible API, `…/v1`. */
  baseURL: string;
  modelId: string;
  /** "Ollama", "LM Studio", "llama.cpp", or null: a server that did not say what it is. */
  server: string | null;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * The addresses to probe: PARLEY_LOCAL_MODELS (comma-separated base URLs, `off` for none) or the
 * usual ports. A bare address means its `/v1`; an address off this machine is refused: a remote
 * server is configured with OPENAI_BASE_URL, not looked for.
 */
export function localModelCandidates(value: string | undefined): string[] {
  const text = value?.trim();
  if (!text) return DEFAULT_LOCAL_MODELS;
  if (text.toLowerCase() === "off") return [];
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      let url: URL;
      try {
        url = new URL(entry);
      } catch {
        throw new Error(`PARLEY_LOCAL_MODELS: "${entry}" is not a URL (e.g. http://127.0.0.1:11434/v1), or "off"`);
      }
      if (url.protocol !== "http:" || !LOOPBACK.has(url.hostname)) {
        throw new Error(`PARLEY_LOCAL_MODELS: "${entry}" is not an http:// address on this machine (127.0.0.1, localhost, [::1]); a remote server is set with OPENAI_BASE_URL`);
      }
      const path = url.pathname.replace(/\/+$/, "");
      return `${url.origin}${path || "/v1"}`;
    });
}

/**
 * The first candidate, in their order, that serves a model: one that supports tool calls where the
 * server says which do (Ollama's /api/show `capabilities`, LM Studio's /api/v0/models), else the
 * first it lists; `prefer` (PARLEY_MODEL) when the server has it. When the budget runs out, the
 * first of those that answered by then; null when none did.
 */
export function probeLocalModels(candidates: string[], { budgetMs = PROBE_BUDGET_MS, prefer }: { budgetMs?: number; prefer?: string } = {}): Promise<LocalModel | null> {
  if (candidates.length === 0) return Promise.resolve(null);
  const stop = new AbortController();
  // undefined: not answered yet.
  const results: Array<LocalModel | null | undefined> = candidates.map(() => undefined);
  return new Promise((resolve) => {
    let timeUp = false;
    let over = false;
    const timer = setTimeout(() => {
      timeUp = true;
      settle();
    }, budgetMs);
    function settle() {
      for (const result of results) {
        if (result === undefined && !timeUp) return;
        if (result) return done(result);
      }
      done(null);
    }
    function done(found: LocalModel | null) {
      if (over) return;
      over = true;
      clearTimeout(timer);
      // The others' requests end with the probe.
      stop.abort();
      resolve(found);
    }
    candidates.forEach((baseURL, i) => {
      void modelAt(baseURL, stop.signal, prefer?.trim() || undefined)
        .catch(() => null)
        .then((found) => {
          results[i] = found;
          settle();
        });
    });
  });
}

type Listed = { id: string; capabilities?: string[]; loaded?: boolean };

async function modelAt(baseURL: string, signal: AbortSignal, prefer: string | undefined): Promise<LocalModel | null> {
  const origin = new URL(baseURL).origin;
  const [openai, ollama, lmStudio] = await Promise.all([getJson(`${baseURL}/models`, signal), getJson(`${origin}/api/tags`, signal), getJson(`${origin}/api/v0/models`, signal)]);
  const tags = listOf(ollama, "models");
  if (tags) {
    const names = tags.map((m) => textOf(m, "name") ?? textOf(m, "model")).filter((n): n is string => n !== undefined);
    const shown = await Promise.all(names.slice(0, MAX_SHOWN).map((name) => getJson(`${origin}/api/show`, signal, { model: name })));
    const models = names.map((name, i) => ({ id: name.replace(/:latest$/, ""), capabilities: stringsOf(shown[i], "capabilities") }));
    return found(baseURL, "Ollama", pick(models, prefer));
  }
  const v0 = listOf(lmStudio, "data");
  if (v0) {
    const models = v0
      .filter((m) => ["llm", "vlm", undefined].includes(textOf(m, "type")))
      .map((m) => ({ id: textOf(m, "id") ?? "", capabilities: stringsOf(m, "capabilities"), loaded: textOf(m, "state") === "loaded" }))
      .filter((m) => m.id);
    return found(baseURL, "LM Studio", pick(models, prefer));
  }
  const listed = listOf(openai, "data");
  if (!listed) return null;
  const models = listed.map((m) => ({ id: textOf(m, "id") ?? "" })).filter((m) => m.id);
  const server = listed.some((m) => textOf(m, "owned_by") === "llamacpp") ? "llama.cpp" : null;
  return found(baseURL, server, pick(models, prefer));
}

const found = (baseURL: string, server: string | null, model: Listed | undefined): LocalModel | null => (model ? { baseURL, modelId: model.id, server } : null);

/** The preferred model if listed; else, where any model's capabilities are given, only those that call tools ("tools", "tool_use"), loaded ones first. */
function pick(models: Listed[], prefer: string | undefined): Listed | undefined {
  const wanted = prefer && models.find((m) => m.id === prefer || m.id === prefer.replace(/:latest$/, ""));
  if (wanted) return wanted;
  const says = models.some((m) => m.capabilities !== undefined);
  const usable = says ? models.filter((m) => m.capabilities?.some((c) => c === "tools" || c === "tool_use")) : models;
  return usable.find((m) => m.loaded) ?? usable[0];
}

async function getJson(url: string, signal: AbortSignal, body?: unknown): Promise<unknown> {
  try {
    const res = await fetch(url, {
      signal,
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    return await res.json();
  } catch {
    // Nothing there, not JSON, or out of time: not this server.
    return undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function listOf(value: unknown, key: string): Record<string, unknown>[] | undefined {
  const list = isRecord(value) ? value[key] : undefined;
  return Array.isArray(list) ? list.filter(isRecord) : undefined;
}

function textOf(value: unknown, key: string): string | undefined {
  const v = isRecord(value) ? value[key] : undefined;
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

function stringsOf(value: unknown, key: string): string[] | undefined {
  const v = isRecord(value) ? value[key] : undefined;
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : undefined;
}
