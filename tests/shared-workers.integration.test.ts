import { afterEach, describe, expect, it } from "vitest";
import type { Run } from "../lib/protocol/entities";
import { startTestApp, waitFor, workerPids, type TestApp } from "./helpers/test-app";

/**
 * One worker process hosts several runs at once (PARLEY_RUNS_PER_WORKER): real worker processes,
 * real SQLite. A run that ignores its stop gets its worker killed with its neighbours inside; they
 * are replayed and are not charged for it.
 */

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function finished(runId: string, ms = 30_000): Promise<Run> {
  return waitFor(async () => {
    const run = await app!.parley.runs.getRun({ id: runId });
    return !["running", "waiting_input"].includes(run.status) && run;
  }, ms);
}

async function questionOf(runId: string, ms = 15_000) {
  return waitFor(async () => (await app!.parley.questions.listPending()).find((q) => q.runId === runId), ms);
}

async function start(functionName: string, input: unknown = null) {
  const session = await app!.parley.sessions.createSession();
  return app!.parley.runs.startRun({ sessionId: session.id, functionName, input });
}

describe("a worker process shared by several runs", () => {
  it("three runs asking at once all wait in the one worker (none is parked to make room), and each finishes with its answer", async () => {
    app = await startTestApp({ maxWorkers: 1, parkAfterMs: 60_000, workerOptions: { runsPerWorker: 3 } });
    const runs = await Promise.all([1, 2, 3].map((i) => start("test.ask", { prompt: `Question ${i}?` })));
    const questions = await Promise.all(runs.map((r) => questionOf(r.id)));
    // All three are live in one process: before, one worker meant one run, and the others had to park.
    expect(app.parley.runs.liveCount()).toBe(3);
    expect(app.parley.pool.health()).toMatchObject({ size: 1, busy: 1, runs: 3, runsPerWorker: 3, queued: 0 });
    expect(workerPids()).toHaveLength(1);

    for (const q of questions) await app.parley.questions.reply({ id: q.id, value: `answer to ${q.prompt}`, by: "rest" });
    for (const [i, run] of runs.entries()) {
      const done = await finished(run.id);
      expect(done).toMatchObject({ status: "succeeded", result: { outcome: "answered", value: `answer to Question ${i + 1}?` } });
      // Never replayed: it stayed in its worker while it waited.
      expect(done.attempts).toBe(1);
    }
    await waitFor(() => app!.parley.pool.health().runs === 0);
  }, 60_000);

  it("a run that ignores its stop is killed with its worker; the neighbours inside are replayed and not charged: a working one succeeds after four such kills, a waiting one gets its answer", async () => {
    app = await startTestApp({ maxWorkers: 1, stopGraceMs: 300, parkAfterMs: 60_000, workerOptions: { runsPerWorker: 4 } });
    const waiter = await start("test.ask", { prompt: "Still there?" });
    const question = await questionOf(waiter.id);
    const worker = await start("test.busy", { workMs: 8_000 });
    await waitFor(async () => (await app!.parley.runs.getRun({ id: worker.id })).attempts === 1);

    // A run may lose its worker three times while working before it fails (maxWorkerLosses):
    // four kills on behalf of other runs would fail it if they were counted as its losses.
    const kills = 4;
    for (let i = 0; i < kills; i++) {
      const stubborn = await start("test.stubborn");
      await questionOf(stubborn.id);
      // The stubborn run and the working neighbour share the only worker.
      expect(workerPids()).toHaveLength(1);
      expect(app.parley.pool.health()).toMatchObject({ size: 1, runs: i === 0 ? 3 : 2 });
      expect((await app.parley.runs.getRun({ id: worker.id })).status).toBe("running");
      const stopped = await app.parley.runs.stopRun({ id: stubborn.id });
      expect(stopped.status).toBe("cancelled");
      expect((await app.parley.runs.getRun({ id: stubborn.id })).error).toMatch(/did not end in time and was killed \(signal SIGKILL\)/);
      // The neighbour is replayed into the next worker (before the next stubborn run is stopped), not failed.
      const neighbour = await waitFor(async () => {
        const run = await app!.parley.runs.getRun({ id: worker.id });
        return (run.attempts === i + 2 || run.status !== "running") && run;
      }, 20_000);
      expect(neighbour.error ?? "").not.toMatch(/ended unexpectedly/);
      expect(neighbour).toMatchObject({ status: "running", attempts: i + 2 });
    }

    const done = await finished(worker.id, 40_000);
    expect(done.error ?? "").not.toMatch(/ended unexpectedly/);
    expect(done).toMatchObject({ status: "succeeded", attempts: kills + 1 });

    // The waiting neighbour lost nothing: its question stayed pending, and the answer resumes it.
    expect((await app.parley.runs.getRun({ id: waiter.id })).status).toBe("waiting_input");
    await app.parley.questions.reply({ id: question.id, value: "yes", by: "rest" });
    expect(await finished(waiter.id)).toMatchObject({ status: "succeeded", result: { outcome: "answered", value: "yes" } });
  }, 120_000);

  it("an uncaught exception fails only its run; the retired worker keeps its other run to the end but takes no new one, then goes", async () => {
    app = await startTestApp({ maxWorkers: 2, parkAfterMs: 60_000, workerOptions: { runsPerWorker: 4 } });
    await waitFor(() => app!.parley.pool.health().idle === 1);
    const neighbour = await start("test.busy", { workMs: 8_000 });
    const bad = await start("test.timer-throws", { delayMs: 3_000, workMs: 10_000, message: "boom" });
    // Both in one worker: it has room for them (no second process is started for the second run).
    await waitFor(() => app!.parley.pool.health().runs === 2);
    expect(app.parley.pool.health()).toMatchObject({ size: 1, busy: 1, runs: 2 });

    expect(await finished(bad.id)).toMatchObject({ status: "failed", error: "test.timer-throws stopped because of an unexpected error." });
    // A new run goes to another worker, while the neighbour still works in the retired one.
    const later = await start("test.busy", { workMs: 100 });
    expect(await finished(later.id)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect((await app.parley.runs.getRun({ id: neighbour.id })).status).toBe("running");
    expect(workerPids()).toHaveLength(2);

    expect(await finished(neighbour.id)).toMatchObject({ status: "succeeded", attempts: 1 });
    // The retired worker is let go after its last run; the other one remains.
    await waitFor(() => workerPids().length === 1 && app!.parley.pool.health().size === 1, 10_000);
  }, 60_000);
});
