import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GET as health } from "../app/api/health/route";
import { setParley } from "../lib/server/registry";
import { servedAs } from "../lib/server/http/request-principal";
import { LOCAL_OWNER } from "../lib/protocol/access";
import { startTestApp, waitFor, workerPids, type TestApp } from "./helpers/test-app";

let app: TestApp | undefined;
afterEach(async () => {
  setParley(undefined);
  await app?.close();
  app = undefined;
});

async function finished(runId: string) {
  return waitFor(async () => {
    const run = await app!.parley.runs.getRun({ id: runId });
    return !["running", "waiting_input"].includes(run.status) && run;
  }, 15_000);
}

async function start(functionName: string, input: unknown = null) {
  const session = await app!.parley.sessions.createSession();
  return app!.parley.runs.startRun({ sessionId: session.id, functionName, input });
}

async function healthBody() {
  setParley(app!.parley);
  // The figures are for a signed-in caller: as the gate signs in the server token.
  const signedIn = { ownerId: LOCAL_OWNER, via: "server_token", credential: "server", admin: true } as const;
  const res = await servedAs(signedIn, () => health(new Request("http://localhost/api/health"), { params: Promise.resolve({}) }));
  return res.json();
}

describe("worker faults over the real server", () => {
  it("a parked run's stray timers do not kill the next run's worker", async () => {
    app = await startTestApp({ maxWorkers: 1, parkAfterMs: 0 });
    const stray = await start("test.stray", { delayMs: 700 });
    await waitFor(async () => (await app!.parley.questions.listPending()).some((q) => q.runId === stray.id));
    // Parked: its worker is back in the pool, idle.
    await waitFor(() => app!.parley.pool.health().busy === 0 && app!.parley.pool.health().idle === 1);
    const before = workerPids();
    expect(before).toHaveLength(1);

    // The bystander works in the same worker while the stray timers would fire (700 ms after they were set).
    const bystander = await start("test.busy", { workMs: 1_500 });
    expect(await finished(bystander.id)).toMatchObject({ status: "succeeded" });
    expect(workerPids()).toEqual(before);
    expect((await app.parley.runs.getRun({ id: stray.id })).status).toBe("waiting_input");
  });

  it("an uncaught exception from a function's timer fails that run with a user-safe message; the retired worker serves nobody else", async () => {
    app = await startTestApp({ maxWorkers: 1 });
    const bad = await start("test.timer-throws", { delayMs: 200, workMs: 5_000, message: "boom with api_key=sk-123" });
    await waitFor(() => app!.parley.pool.health().busy === 1);
    const [badPid] = workerPids();

    const failed = await finished(bad.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe("test.timer-throws stopped because of an unexpected error.");

    const later = await start("test.busy", { workMs: 100 });
    expect(await finished(later.id)).toMatchObject({ status: "succeeded" });
    await waitFor(() => !workerPids().includes(badPid!));
  });

  it("an agent function's raw error text is not the run's error", async () => {
    app = await startTestApp();
    const run = await start("test.fail", { message: "token ghp_secret leaked" });
    const done = await finished(run.id);
    expect(done.status).toBe("failed");
    expect(done.error).not.toContain("ghp_secret");
    // The end's message is written after the end itself.
    const messages = await waitFor(async () => {
      const { messages } = await app!.parley.sessions.getSnapshot({ id: done.sessionId });
      return messages.length > 0 && messages;
    });
    expect(messages.map((m) => m.text)).toEqual(["Run test.fail failed: test.fail stopped because of an unexpected error."]);
  });

  it("a worker that throws on import fails the run with the reason after bounded tries, and /api/health says so", async () => {
    app = await startTestApp({
      workerScript: path.resolve(import.meta.dirname, "fixtures/flaky-worker.mjs"),
      workerOptions: { maxStartAttempts: 3, startBackoffMs: 20, startCooldownMs: 60_000 },
    });
    const run = await start("test.busy");
    const done = await finished(run.id);
    expect(done).toMatchObject({ status: "failed", error: "No worker process could be started (3 tries)." });

    const body = await healthBody();
    expect(body).toMatchObject({ ok: false, workerPool: { size: 0, startFailures: { consecutive: 3 } } });
    expect(body.workerPool.startFailures.lastError).toBe("Worker exited during start-up (exit code 1).");
    expect(JSON.stringify(body)).not.toContain("SECRET_TOKEN");

    // While cooling down, a new run fails at once instead of waiting.
    const again = await start("test.busy");
    expect(await finished(again.id)).toMatchObject({ status: "failed", error: "No worker process could be started (3 tries)." });
  });

  it("/api/health reports the worker pool", async () => {
    app = await startTestApp({ maxWorkers: 2 });
    await waitFor(() => app!.parley.pool.health().idle === 1);
    const body = await healthBody();
    expect(body).toMatchObject({ ok: true, workers: 1, workerPool: { ok: true, size: 1, idle: 1, busy: 0, queued: 0, maxWorkers: 2, startFailures: { consecutive: 0, total: 0 } } });
  });
});
