import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_LOCAL_MODELS, localModelCandidates, PROBE_BUDGET_MS, probeLocalModels } from "./local-model-probe";
import { describeModel, modelAtStart, modelEnv, modelInfo, modelSettings } from "./model-settings";

/** A route's answer (or its promise): JSON (200), a status alone, or "hang" (the request is never answered). */
type Routes = Record<string, (body: Record<string, unknown>) => unknown>;

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server on a loopback ephemeral port answering "GET /path" or "POST /path" from its routes (404 otherwise); its base URL (…/v1). */
async function serve(routes: Routes): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const route = routes[`${req.method} ${req.url}`];
      if (!route) return res.writeHead(404).end();
      void Promise.resolve(route(raw ? (JSON.parse(raw) as Record<string, unknown>) : {})).then((answer) => {
        if (answer === "hang") return;
        if (typeof answer === "number") return res.writeHead(answer).end();
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      });
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** An address where nothing listens. */
async function closedPort(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}/v1`;
}

const openaiModels = (...ids: string[]) => ({ object: "list", data: ids.map((id) => ({ id, object: "model", owned_by: "someone" })) });

/** Ollama: /api/tags lists the models, /api/show says each one's capabilities (`capabilities` undefined: an older Ollama that does not say). */
const ollama = (models: Record<string, string[] | undefined>): Routes => ({
  "GET /v1/models": () => openaiModels(...Object.keys(models)),
  "GET /api/tags": () => ({ models: Object.keys(models).map((name) => ({ name, model: name })) }),
  "POST /api/show": (body) => {
    const capabilities = models[String(body.model)];
    return capabilities ? { details: {}, capabilities } : { details: {} };
  },
});

describe("the local model probe", () => {
  it("takes the first model an OpenAI-compatible server lists, and names llama.cpp's server", async () => {
    const plain = await serve({ "GET /v1/models": () => openaiModels("first-model", "second-model") });
    expect(await probeLocalModels([plain])).toEqual({ baseURL: plain, modelId: "first-model", server: null });
    const llamaCpp = await serve({ "GET /v1/models": () => ({ object: "list", data: [{ id: "qwen2.5-7b.gguf", object: "model", owned_by: "llamacpp" }] }) });
    expect(await probeLocalModels([llamaCpp])).toEqual({ baseURL: llamaCpp, modelId: "qwen2.5-7b.gguf", server: "llama.cpp" });
  });

  it("on Ollama, takes a model whose capabilities include tools, or the first when Ollama does not say", async () => {
    const says = await serve(ollama({ "nomic-embed-text:latest": ["embedding"], "llama2:latest": ["completion"], "llama3.2:latest": ["completion", "tools"] }));
    expect(await probeLocalModels([says])).toEqual({ baseURL: says, modelId: "llama3.2", server: "Ollama" });
    const older = await serve(ollama({ "mistral:7b": undefined, "llama3.2:latest": undefined }));
    expect(await probeLocalModels([older])).toMatchObject({ modelId: "mistral:7b", server: "Ollama" });
  });

  it("passes over an Ollama with no model that calls tools, or with none at all, for the next candidate", async () => {
    const noTools = await serve(ollama({ "llama2:latest": ["completion"] }));
    const empty = await serve(ollama({}));
    const next = await serve({ "GET /v1/models": () => openaiModels("next-model") });
    expect(await probeLocalModels([noTools, empty, next])).toMatchObject({ baseURL: next, modelId: "next-model" });
  });

  it("on LM Studio, takes a loaded model with tool_use over an embedding model and one that does not call tools", async () => {
    const lmStudio = await serve({
      "GET /v1/models": () => openaiModels("text-embedding-nomic", "plain-llm", "tool-llm", "loaded-tool-llm"),
      "GET /api/v0/models": () => ({
        object: "list",
        data: [
          { id: "text-embedding-nomic", type: "embeddings", state: "loaded" },
          { id: "plain-llm", type: "llm", state: "loaded" },
          { id: "tool-llm", type: "llm", state: "not-loaded", capabilities: ["tool_use"] },
          { id: "loaded-tool-llm", type: "llm", state: "loaded", capabilities: ["tool_use"] },
        ],
      }),
    });
    expect(await probeLocalModels([lmStudio])).toEqual({ baseURL: lmStudio, modelId: "loaded-tool-llm", server: "LM Studio" });
  });

  it("takes the model PARLEY_MODEL names when the server has it", async () => {
    const server = await serve(ollama({ "llama3.2:latest": ["completion", "tools"], "qwen2.5:7b": ["completion", "tools"] }));
    expect(await probeLocalModels([server], { prefer: "qwen2.5:7b" })).toMatchObject({ modelId: "qwen2.5:7b" });
    expect(await probeLocalModels([server], { prefer: "not-pulled" })).toMatchObject({ modelId: "llama3.2" });
  });

  it("prefers the candidates in their order, whichever answers first", async () => {
    const slow = await serve({ "GET /v1/models": () => new Promise((r) => setTimeout(() => r(openaiModels("slow-model")), 100)) });
    const fast = await serve({ "GET /v1/models": () => openaiModels("fast-model") });
    expect(await probeLocalModels([await closedPort(), slow, fast])).toMatchObject({ baseURL: slow });
    expect(await probeLocalModels([fast, slow])).toMatchObject({ baseURL: fast });
  });

  it("gives up within its budget on a server that never answers, taking the next one that did", async () => {
    const hangs = await serve({ "GET /v1/models": () => "hang", "GET /api/tags": () => "hang", "GET /api/v0/models": () => "hang" });
    const answers = await serve({ "GET /v1/models": () => openaiModels("answering-model") });
    let started = Date.now();
    expect(await probeLocalModels([hangs])).toBeNull();
    const alone = Date.now() - started;
    expect(alone).toBeGreaterThanOrEqual(PROBE_BUDGET_MS - 20);
    expect(alone).toBeLessThan(PROBE_BUDGET_MS + 200);
    started = Date.now();
    expect(await probeLocalModels([hangs, answers])).toMatchObject({ modelId: "answering-model" });
    expect(Date.now() - started).toBeLessThan(PROBE_BUDGET_MS + 200);
  });

  it("finds nothing where nothing listens, or answers something else", async () => {
    const other = await serve({ "GET /v1/models": () => ({ hello: "world" }), "GET /api/tags": () => 500 });
    expect(await probeLocalModels([await closedPort(), other])).toBeNull();
    expect(await probeLocalModels([])).toBeNull();
  });
});

describe("PARLEY_LOCAL_MODELS", () => {
  it("is the usual ports by default, none for off, and bare addresses mean their /v1", () => {
    expect(localModelCandidates(undefined)).toEqual(DEFAULT_LOCAL_MODELS);
    expect(DEFAULT_LOCAL_MODELS).toEqual(["http://127.0.0.1:11434/v1", "http://127.0.0.1:1234/v1", "http://127.0.0.1:8080/v1"]);
    expect(localModelCandidates(" OFF ")).toEqual([]);
    expect(localModelCandidates("http://localhost:11434, http://[::1]:9000/api/v1/")).toEqual(["http://localhost:11434/v1", "http://[::1]:9000/api/v1"]);
  });

  it("refuses an address off this machine, and what is not a URL", () => {
    expect(() => localModelCandidates("http://192.168.1.5:11434/v1")).toThrow(/not an http:\/\/ address on this machine.*OPENAI_BASE_URL/);
    expect(() => localModelCandidates("https://127.0.0.1:11434/v1")).toThrow(/PARLEY_LOCAL_MODELS/);
    expect(() => localModelCandidates("11434")).toThrow(/is not a URL/);
  });
});

describe("the model at start-up", () => {
  const noProbe = () => vi.fn<typeof probeLocalModels>(async () => ({ baseURL: "http://127.0.0.1:1/v1", modelId: "never", server: null }));

  it("uses what the environment configures without probing: OPENAI_BASE_URL, PARLEY_PROVIDER, OPENAI_API_KEY alone (OpenAI's API)", async () => {
    const probe = noProbe();
    expect(await modelAtStart({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1", PARLEY_MODEL: "llama3.2" }, probe)).toMatchObject({
      provider: "openai",
      baseURL: "http://127.0.0.1:9/v1",
      modelId: "llama3.2",
    });
    expect(await modelAtStart({ PARLEY_PROVIDER: "openai" }, probe)).toMatchObject({ provider: "openai", baseURL: "https://api.openai.com/v1" });
    const keyAlone = await modelAtStart({ OPENAI_API_KEY: "sk-test-0123456789" }, probe);
    expect(keyAlone).toMatchObject({ provider: "openai", baseURL: "https://api.openai.com/v1", modelId: "gpt-4o-mini", apiKey: "sk-test-0123456789" });
    expect(describeModel(keyAlone)).toBe("Model: openai-compatible gpt-4o-mini at https://api.openai.com/v1 (from OPENAI_API_KEY) — PARLEY_MODEL=scripted to use the offline script");
    expect(modelInfo(keyAlone)).toMatchObject({ label: "gpt-4o-mini · OpenAI", scripted: false });
    expect(probe).not.toHaveBeenCalled();
  });

  it("keeps the offline script for PARLEY_MODEL=scripted or PARLEY_PROVIDER=scripted, over a key and a base URL, without probing", async () => {
    const probe = noProbe();
    expect(await modelAtStart({ PARLEY_MODEL: "scripted", OPENAI_API_KEY: "sk-x", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }, probe)).toMatchObject({ provider: "scripted" });
    expect(await modelAtStart({ PARLEY_PROVIDER: "scripted", OPENAI_API_KEY: "sk-x" }, probe)).toMatchObject({ provider: "scripted" });
    expect(probe).not.toHaveBeenCalled();
    expect(modelSettings({ PARLEY_MODEL: "Scripted" }).provider).toBe("scripted");
  });

  it("with nothing configured, uses a model server found on this machine, says it, and hands it to the workers", async () => {
    const ollamaAt = await serve(ollama({ "llama3.2:latest": ["completion", "tools"] }));
    const model = await modelAtStart({ PARLEY_LOCAL_MODELS: `${await closedPort()},${ollamaAt}` });
    const host = new URL(ollamaAt).host;
    expect(describeModel(model)).toBe(`Model: llama3.2 on Ollama at ${host} — PARLEY_MODEL=scripted to use the offline script`);
    expect(modelInfo(model)).toEqual({ label: "llama3.2 · Ollama", detail: `The chat's model: llama3.2 on Ollama at ${host}`, scripted: false });
    // A worker reads the same model from the environment it is given.
    expect(modelSettings({ PARLEY_LOCAL_MODELS: "off", ...modelEnv(model) })).toMatchObject({ provider: "openai", baseURL: ollamaAt, modelId: "llama3.2" });
  });

  it("with nothing configured and nothing found, is the offline script, and so are its workers", async () => {
    const model = await modelAtStart({ PARLEY_LOCAL_MODELS: await closedPort() });
    expect(model.provider).toBe("scripted");
    expect(describeModel(model)).toMatch(/^Model: scripted \(offline, no key needed\) — start Ollama or set OPENAI_BASE_URL/);
    expect(modelInfo(model)).toMatchObject({ label: "Offline script", scripted: true });
    expect(modelSettings(modelEnv(model)).provider).toBe("scripted");
    await expect(modelAtStart({ PARLEY_LOCAL_MODELS: "off" })).resolves.toMatchObject({ provider: "scripted" });
  });

  it("refuses a PARLEY_LOCAL_MODELS off this machine", async () => {
    await expect(modelAtStart({ PARLEY_LOCAL_MODELS: "http://example.com/v1" })).rejects.toThrow(/PARLEY_LOCAL_MODELS/);
  });
});
