import { exec } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { Run } from "../lib/protocol/entities";
import { startTestApp, waitFor, type TestApp } from "./helpers/test-app";
import { HANG_MS } from "./helpers/timing";

/** Runs parked at once (npm run test:long: 200). */
const PARKED_RUNS = Number(process.env.PARLEY_PARKED_RUNS ?? 50);

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Worker processes alive now: children of this test process running the agent worker. */
async function workerCount(): Promise<number> {
  const { stdout } = await promisify(exec)(`ps -o pid=,args= --ppid ${process.pid}`);
  return stdout.split("\n").filter((line) => line.includes("agent-worker")).length;
}

async function finished(a: TestApp, runId: string): Promise<Run> {
  return waitFor(async () => {
    const run = await a.parley.runs.getRun({ id: runId });
    return !["running", "waiting_input"].includes(run.status) && run;
  }, 60_000);
}

describe("parking", () => {
  it(`${PARKED_RUNS} waiting runs hold at most the pool's workers, and all ${PARKED_RUNS} complete with their own answers`, async () => {
    const maxWorkers = 3;
    app = await startTestApp({ parkAfterMs: 0, maxWorkers });
    const a = app;
    const session = await a.parley.sessions.createSession();
    let most = 0;
    const sampler = setInterval(() => void workerCount().then((n) => (most = Math.max(most, n))), 100);
    try {
      const runs = [];
      for (let i = 0; i < PARKED_RUNS; i++) {
        runs.push(await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: `Question ${i}?` } }));
      }
      const pending = await waitFor(async () => {
        const list = await a.parley.questions.listPending({ sessionId: session.id });
        return list.length === PARKED_RUNS && list;
      }, 120_000);
      await waitFor(() => a.parley.runs.liveCount() === 0, 30_000);
      expect(await workerCount()).toBeLessThanOrEqual(maxWorkers);

      for (const q of pending) await a.parley.questions.reply({ id: q.id, value: `answer to ${q.prompt}`, by: "rest" });
      for (const [i, run] of runs.entries()) {
        const done = await finished(a, run.id);
        expect(done).toMatchObject({ status: "succeeded", result: { outcome: "answered", value: `answer to Question ${i}?` } });
        expect(done.attempts).toBeGreaterThanOrEqual(2);
      }
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBeLessThanOrEqual(maxWorkers);
  }, 240_000);

  it(
    "runs queued for a worker do not wait out the park delay: 40 runs asking at once on 2 workers all reach their question",
    async () => {
      // Before: each waiting run held its worker for the whole park delay (here an hour), so the third
      // run reached its question an hour later. The wait below is only a ceiling for that hang, far
      // below the park delay (it passes in a second or two). One run a worker, so that the runs do queue
      // for the two workers (a worker hosts 32 by default: 40 runs on 2 never queued).
      app = await startTestApp({ parkAfterMs: 3_600_000, maxWorkers: 2, workerOptions: { runsPerWorker: 1 } });
      const a = app;
      const session = await a.parley.sessions.createSession();
      for (let i = 0; i < 40; i++) await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: `Question ${i}?` } });
      await waitFor(async () => (await a.parley.questions.listPending({ sessionId: session.id })).length === 40, 2 * HANG_MS);
    },
    3 * HANG_MS,
  );

  it("a function that asks something else when replayed fails with a clear divergence error", async () => {
    app = await startTestApp({ parkAfterMs: 0, maxWorkers: 1 });
    const a = app;
    const session = await a.parley.sessions.createSession();
    const run = await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.diverge" });
    const [question] = await waitFor(async () => {
      const list = await a.parley.questions.listPending({ sessionId: session.id });
      return list.length === 1 && list;
    });
    await waitFor(() => a.parley.runs.liveCount() === 0);
    await a.parley.questions.reply({ id: question!.id, value: "yes", by: "rest" });
    const done = await finished(a, run.id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/diverged from its journal at step 0/);
  });
});

describe("nested runs", () => {
  it("children's questions show in the root's pending list, answers go to their owners, the root gets both results", async () => {
    app = await startTestApp({ parkAfterMs: 200 });
    const a = app;
    const session = await a.parley.sessions.createSession();
    const root = await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.parent" });
    const detail = await waitFor(async () => {
      const d = await a.parley.runs.getRunDetail({ id: root.id });
      return d.pendingQuestions.length === 2 && d;
    });
    const prompts = detail.pendingQuestions.map((q) => q.prompt).sort();
    expect(prompts).toEqual(["Child A?", "Child B?"]);
    for (const q of detail.pendingQuestions) {
      expect(q.runId).not.toBe(root.id);
      expect(q.rootRunId).toBe(root.id);
      expect(q.owner).toBe("test.ask");
    }
    const byPrompt = Object.fromEntries(detail.pendingQuestions.map((q) => [q.prompt, q]));
    await a.parley.questions.reply({ id: byPrompt["Child A?"]!.id, value: "alpha", by: "rest" });
    // The root waits while its sibling still works.
    await new Promise((r) => setTimeout(r, 500));
    expect((await a.parley.runs.getRun({ id: root.id })).status).toBe("running");
    await a.parley.questions.reply({ id: byPrompt["Child B?"]!.id, value: "beta", by: "rest" });
    const done = await finished(a, root.id);
    expect(done).toMatchObject({
      status: "succeeded",
      result: { a: { outcome: "answered", value: "alpha" }, b: { outcome: "answered", value: "beta" } },
    });
  });

  it("stopping the root ends the whole tree as cancelled, and the stop returns once every run has ended", async () => {
    app = await startTestApp({ parkAfterMs: 200 });
    const a = app;
    const session = await a.parley.sessions.createSession();
    const root = await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.parent" });
    await waitFor(async () => (await a.parley.runs.getRunDetail({ id: root.id })).pendingQuestions.length === 2);
    const stopped = await a.parley.runs.stopRun({ id: root.id });
    expect(stopped).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });
    const runs = await a.parley.runs.listRuns({ sessionId: session.id });
    expect(runs.map((r) => r.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    expect(await a.parley.questions.listPending({ sessionId: session.id })).toEqual([]);
    expect(a.parley.runs.liveCount()).toBe(0);
  });
});

describe("policy and busy sessions", () => {
  it("the ninth question of a run is refused with a typed error the function can handle", async () => {
    app = await startTestApp();
    const a = app;
    const session = await a.parley.sessions.createSession();
    const run = await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.many", input: { count: 9 } });
    for (let i = 1; i <= 8; i++) {
      const [q] = await waitFor(async () => {
        const list = await a.parley.questions.listPending({ sessionId: session.id });
        return list.length === 1 && list;
      });
      expect(q!.prompt).toBe(`Question ${i}?`);
      await a.parley.questions.reply({ id: q!.id, value: "ok", by: "rest" });
    }
    expect((await finished(a, run.id)).result).toEqual({ answers: Array(8).fill("ok"), refused: "max_requests_exceeded" });
  });

  it("time waiting for a person does not count against the execution time limit; working past it fails the run", async () => {
    app = await startTestApp({ stopGraceMs: 500 });
    const a = app;
    const session = await a.parley.sessions.createSession();
    /** Answers the run's question `ms` after it is pending: how long it waited for the answer, at least. */
    const answerAfter = async (runId: string, ms: number) => {
      const q = await waitFor(async () => (await a.parley.questions.listPending()).find((x) => x.runId === runId));
      const seen = Date.now();
      await new Promise((r) => setTimeout(r, ms));
      await a.parley.questions.reply({ id: q.id, value: "go", by: "rest" });
      return Date.now() - seen;
    };
    // Five times the work the patient run does (300 ms, with some milliseconds of its own around it).
    const policy = { maxActiveMs: 1_500 };

    const patient = await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.work", input: { workMs: 300 }, policy });
    const waited = await answerAfter(patient.id, 2_000);
    const ok = await finished(a, patient.id);
    expect(ok).toMatchObject({ status: "succeeded", result: { worked: 300 } });
    // Its work counted, the wait for the answer did not (counted, the time would be longer than the wait alone).
    expect(ok.activeMs).toBeGreaterThanOrEqual(300);
    expect(ok.activeMs, `active ${ok.activeMs} ms, waited ${waited} ms for the answer`).toBeLessThan(waited);

    const busy = await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.work", input: { workMs: 5_000 }, policy });
    await answerAfter(busy.id, 0);
    const failed = await finished(a, busy.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/execution time limit of 1.5 s \(time waiting for a person is not counted\)/);
  });

  it("a policy outside its range is refused when the run starts", async () => {
    app = await startTestApp();
    const session = await app.parley.sessions.createSession();
    await expect(app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", policy: { maxRequests: 33 } })).rejects.toMatchObject({
      code: "invalid_policy",
    });
  });

  it("a session waiting for an answer refuses a new chat turn with session_busy", async () => {
    app = await startTestApp();
    const a = app;
    const session = await a.parley.sessions.createSession();
    await a.parley.postMessage({ sessionId: session.id, text: "/deploy" });
    const [q] = await waitFor(async () => {
      const list = await a.parley.questions.listPending({ sessionId: session.id });
      return list.length === 1 && list;
    });
    await expect(a.parley.postMessage({ sessionId: session.id, text: "/coffee" })).rejects.toMatchObject({ code: "session_busy" });
    // Answered, the turn goes on working: still one turn at a time.
    await a.parley.questions.reply({ id: q!.id, value: "staging", by: "rest" });
    await expect(a.parley.postMessage({ sessionId: session.id, text: "/coffee" })).rejects.toMatchObject({ code: "session_busy" });
    await a.parley.runs.stopRun({ id: q!.runId });
    const run = (await a.parley.postMessage({ sessionId: session.id, text: "help" })) as Run;
    expect(run.status).toBe("running");
  });

  it("six chat messages at once on an idle session start exactly one turn; the other five get session_busy and store nothing", async () => {
    app = await startTestApp();
    const a = app;
    const session = await a.parley.sessions.createSession();
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => a.parley.postMessage({ sessionId: session.id, text: `help ${i}` })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) expect(r.reason).toMatchObject({ code: "session_busy" });
    expect(await a.parley.runs.listRuns({ sessionId: session.id })).toHaveLength(1);
    const snapshot = await a.parley.sessions.getSnapshot({ id: session.id });
    expect(snapshot.messages.filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("starting a run twice under one commandId starts it once", async () => {
    app = await startTestApp();
    const session = await app.parley.sessions.createSession();
    const first = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", commandId: "start-1" });
    const again = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", commandId: "start-1" });
    expect(again.id).toBe(first.id);
    expect(again.receipt).toEqual(first.receipt);
    expect(first.receipt).toMatchObject({ kind: "start_run", record_state: "durably_recorded", apply_state: "applied" });
    await expect(app.parley.runs.startRun({ sessionId: session.id, functionName: "deploy", commandId: "start-1" })).rejects.toMatchObject({ code: "command_conflict" });
    expect(await app.parley.runs.listRuns({ sessionId: session.id })).toHaveLength(1);
  });
});
