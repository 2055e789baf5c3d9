import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, waitFor, type TestApp } from "./helpers/test-app";

let app: TestApp;
beforeEach(async () => {
  app = await startTestApp({ stopGraceMs: 500 });
});
afterEach(async () => {
  await app.close();
});

async function pendingOf(runId: string) {
  return waitFor(async () => (await app.parley.questions.listPending()).find((q) => q.runId === runId));
}

async function finished(runId: string, ms?: number) {
  return waitFor(async () => {
    const run = await app.parley.runs.getRun({ id: runId });
    return !["running", "waiting_input"].includes(run.status) && run;
  }, ms);
}

describe("a real worker process", () => {
  it("asks, and the answer resumes the function with it", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Env?", options: ["a", "b"] } });
    const question = await pendingOf(run.id);
    await waitFor(async () => (await app.parley.runs.getRun({ id: run.id })).status === "waiting_input");
    expect(question).toMatchObject({ prompt: "Env?", options: ["a", "b"], status: "pending" });

    await app.parley.questions.reply({ id: question.id, value: "b", by: "rest" });
    const done = await finished(run.id);
    expect(done).toMatchObject({ status: "succeeded", result: { outcome: "answered", value: "b" } });
    const snapshot = await app.parley.sessions.getSnapshot({ id: session.id });
    expect(snapshot.messages.map((m) => m.text)).toContain('You answered: "b"');
  });

  it("a decline reaches the function as UserDeclined with its feedback", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: {} });
    const question = await pendingOf(run.id);
    await app.parley.questions.reject({ id: question.id, message: "not now", by: "socket" });
    expect(await finished(run.id)).toMatchObject({ status: "succeeded", result: { outcome: "declined", feedback: "not now" } });
  });

  it("a server-side timeout resumes the function with its default", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { timeoutMs: 300, default: "fallback" } });
    const done = await finished(run.id);
    expect(done).toMatchObject({ status: "succeeded", result: { outcome: "answered", value: "fallback" } });
  });

  it("a worker killed while its run waits loses nothing: the question stays pending and the answer resumes the run by replay", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.journal", input: {} });
    const question = await pendingOf(run.id);
    await waitFor(async () => (await app.parley.runs.getRun({ id: run.id })).status === "waiting_input");

    for (const pid of await workerPids()) process.kill(pid, "SIGKILL");
    await waitFor(() => app.parley.runs.liveCount() === 0);
    expect(await app.parley.questions.getQuestion({ id: question.id })).toMatchObject({ status: "pending" });
    expect((await app.parley.runs.getRun({ id: run.id })).status).toBe("waiting_input");

    await app.parley.questions.reply({ id: question.id, value: "red", by: "rest" });
    const done = await finished(run.id);
    expect(done).toMatchObject({ status: "succeeded", result: { color: "red" } });
    const said = (await app.parley.sessions.getSnapshot({ id: session.id })).messages.filter((m) => m.text.startsWith("Token "));
    expect(said.map((m) => m.text)).toEqual([`Token ${(done.result as { token: string }).token}`]);
  });

  it("a worker killed while its run works is a fault to recover from: the run is replayed in a new worker and succeeds", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.busy", input: { workMs: 1_500 } });
    await waitFor(async () => (await app.parley.sessions.getSnapshot({ id: session.id })).messages.some((m) => m.text.startsWith("Token ")));

    for (const pid of await workerPids()) process.kill(pid, "SIGKILL");
    const done = await finished(run.id);
    expect(done).toMatchObject({ status: "succeeded", attempts: 2 });
    const said = (await app.parley.sessions.getSnapshot({ id: session.id })).messages.filter((m) => m.text.startsWith("Token "));
    expect(said.map((m) => m.text)).toEqual([`Token ${(done.result as { token: string }).token}`]);
  });

  it("a run that keeps killing its worker is replayed a bounded number of times, then fails with the reason", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.crash" });
    // Four worker processes start one after another (each loads its modules): seconds on a busy machine.
    const done = await finished(run.id, 40_000);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/worker process ended unexpectedly 4 times \(last: signal SIGKILL\)/);
    expect(done.attempts).toBe(4);
    // The end's message is written after the end itself.
    const last = await waitFor(async () => (await app.parley.sessions.getSnapshot({ id: session.id })).messages.find((m) => m.role === "system"));
    expect(last).toMatchObject({ role: "system", text: expect.stringContaining("failed") });
    expect((await app.parley.sessions.getSnapshot({ id: session.id })).messages.at(-1)).toEqual(last);
  }, 60_000);

  it("stop cancels the questions; a worker that ignores it is killed after the grace period", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.stubborn" });
    const question = await pendingOf(run.id);
    const started = Date.now();
    const stopped = await app.parley.runs.stopRun({ id: run.id });
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(stopped.status).toBe("cancelled");
    expect(stopped.error).toMatch(/killed/);
    expect(await app.parley.questions.getQuestion({ id: question.id })).toMatchObject({ status: "cancelled", closedBy: "stop" });
    expect(app.parley.runs.liveCount()).toBe(0);
  });

  it("stop of a cooperative run ends it promptly as cancelled; stopping again is a no-op", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: {} });
    await pendingOf(run.id);
    const stopped = await app.parley.runs.stopRun({ id: run.id });
    expect(stopped.status).toBe("cancelled");
    expect(stopped.error).not.toMatch(/killed/);
    expect((await app.parley.runs.stopRun({ id: run.id })).status).toBe("cancelled");
  });

  it("a stop that loses the race to the function's own end leaves the run succeeded with its result, and says so", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.finish-anyway" });
    await pendingOf(run.id);
    const stopped = await app.parley.runs.stopRun({ id: run.id });
    expect(stopped).toMatchObject({ status: "succeeded", result: { done: true }, error: null });
    expect(stopped.receipt).toMatchObject({ outcome: "finished_first" });
  });

  it("refuses an unknown function and an unknown session", async () => {
    const session = await app.parley.sessions.createSession();
    await expect(app.parley.runs.startRun({ sessionId: session.id, functionName: "nope" })).rejects.toMatchObject({ code: "not_found:function" });
    await expect(app.parley.runs.startRun({ sessionId: "nope", functionName: "deploy" })).rejects.toMatchObject({ code: "not_found:session" });
  });

  it("a restart keeps the question pending; answering it resumes the run by replay", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.journal", input: {} });
    const question = await pendingOf(run.id);
    await app.close({ keepData: true });

    app = await startTestApp({ dir: app.dir });
    const still = await app.parley.questions.getQuestion({ id: question.id });
    expect(still).toMatchObject({ status: "pending", expiresAt: question.expiresAt, pendingId: question.pendingId });
    expect(app.parley.runs.liveCount()).toBe(0);

    await app.parley.questions.reply({ id: question.id, value: "blue", by: "rest" });
    const done = await finished(run.id);
    // The step and the message before the question happened once: replay returned what was recorded.
    const said = (await app.parley.sessions.getSnapshot({ id: session.id })).messages.filter((m) => m.text.startsWith("Token "));
    expect(said).toHaveLength(1);
    expect(done).toMatchObject({ status: "succeeded", attempts: 2, result: { color: "blue" } });
    expect(said[0]!.text).toBe(`Token ${(done.result as { token: string }).token}`);
  });

  it("a run that was working when the server went away is resumed by replay at the next start", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.busy", input: { workMs: 1_500 } });
    await waitFor(async () => (await app.parley.sessions.getSnapshot({ id: session.id })).messages.some((m) => m.text.startsWith("Token ")));
    await app.close({ keepData: true });
    expect((await (app = await startTestApp({ dir: app.dir })).parley.runs.getRun({ id: run.id })).status).toBe("running");

    const done = await finished(run.id);
    expect(done).toMatchObject({ status: "succeeded", attempts: 2 });
    const said = (await app.parley.sessions.getSnapshot({ id: session.id })).messages.filter((m) => m.text.startsWith("Token "));
    expect(said.map((m) => m.text)).toEqual([`Token ${(done.result as { token: string }).token}`]);
  });
});

async function workerPids(): Promise<number[]> {
  const { execSync } = await import("node:child_process");
  const out = execSync(`ps -o pid= --ppid ${process.pid}`).toString();
  // Only our forked workers (tsx may add a loader child per worker: kill the whole tree).
  const direct = out
    .split("\n")
    .map((s) => Number(s.trim()))
    .filter(Boolean);
  return direct.filter((pid) => {
    try {
      return execSync(`ps -o args= -p ${pid}`).toString().includes("agent-worker");
    } catch {
      return false;
    }
  });
}
