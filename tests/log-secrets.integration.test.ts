import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Run } from "../lib/protocol/entities";
import { authHeaders, freePort, startServerProcess, TEST_TOKEN, type ServerProcess } from "./helpers/server-process";

const MODEL_KEY = "sk-live-model-key-0123456789abcdef";

let server: ServerProcess | undefined;
let provider: Server | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.kill();
  await new Promise((r) => (provider ? provider.close(r) : r(undefined)));
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = provider = dir = undefined;
});

/** A model provider that fails every call and says the credentials it was sent back, as some do. */
async function failingProvider(): Promise<string> {
  provider = createServer((req, res) => {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `upstream failed for key ${MODEL_KEY}; you sent ${req.headers.authorization}` } }));
  });
  await new Promise<void>((r) => provider!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
}

async function call<T>(route: string, body?: unknown): Promise<T> {
  const res = await fetch(
    `${server!.url}${route}`,
    body === undefined ? { headers: authHeaders() } : { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) },
  );
  if (!res.ok) throw new Error(`${route}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The server's log lines (JSON in production), beside the plain lines it says to a person. */
const logLines = (output: string) =>
  output
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("the production server's log", () => {
  it("says a failed model call and a function's fault as JSON lines of their runs, with neither the model's key nor the server token in any line", { timeout: 120_000 }, async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-log-"));
    const baseURL = await failingProvider();
    server = await startServerProcess({
      port: await freePort(),
      databaseFile: path.join(dir, "p.db"),
      env: { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: MODEL_KEY, PARLEY_MODEL_RETRIES: "0", PARLEY_LOG_LEVEL: "info" },
    });
    const session = await call<{ id: string }>("/api/sessions", { title: "logs" });
    const run = await call<Run>(`/api/sessions/${session.id}/messages`, { text: "hello" });
    const deadline = Date.now() + 60_000;
    let failure: Record<string, unknown> | undefined;
    while (!failure) {
      if (Date.now() > deadline) throw new Error(`no log line of the failed run:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 100));
      failure = logLines(server.output()).find((l) => l.runId === run.id && l.level === 50);
    }
    expect((await call<Run>(`/api/runs/${run.id}`)).status).toBe("failed");
    expect(failure).toMatchObject({ sessionId: session.id, fn: "chat", node: expect.any(String), msg: expect.stringMatching(/failed/) });

    // A function's own error, thrown with the secrets in it: the worker says it, and so does the server.
    const exploded = await call<{ id: string }>(`/api/sessions/${session.id}/runs`, { function: "test.timer-throws", input: { delayMs: 10, message: `exploded near ${MODEL_KEY} and ${TEST_TOKEN}` } });
    let worker: Record<string, unknown> | undefined;
    while (!worker) {
      if (Date.now() > deadline) throw new Error(`no log line of the worker's fault:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 100));
      worker = logLines(server.output()).find((l) => l.runId === exploded.id && typeof l.worker === "number");
    }
    expect(worker).toMatchObject({
      level: 50,
      fn: "test.timer-throws",
      msg: expect.stringMatching(/fails because of an uncaught exception/),
      err: { message: "exploded near [redacted] and [redacted]" },
    });
    const output = server.output();
    expect(output).not.toContain(MODEL_KEY);
    expect(output).not.toContain(TEST_TOKEN);
  });
});
