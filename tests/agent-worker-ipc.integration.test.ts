import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkerUnderTest } from "./helpers/worker-ipc";

let worker: WorkerUnderTest;
beforeEach(async () => {
  worker = new WorkerUnderTest();
  await worker.ready();
});
afterEach(async () => {
  await worker.kill();
});

describe("the agent worker's run errors", () => {
  it("a plain Error's text and stack go to the log detail, never to the run's message", async () => {
    worker.start("r1", "test.fail", { message: "Connecting with password hunter2 failed" });
    const done = await worker.finished("r1");
    expect(done.status).toBe("failed");
    expect(done.error!.message).toBe("test.fail stopped because of an unexpected error.");
    expect(done.error!.message).not.toContain("hunter2");
    expect(done.error!.detail).toContain("Connecting with password hunter2 failed");
    expect(done.error!.detail).toMatch(/at .*test-functions\/probes\.ts/);
  });

  it("an AgentError's message is shown as written", async () => {
    worker.start("r1", "test.fail", { message: "The repository is archived; unarchive it first.", agentError: true });
    const done = await worker.finished("r1");
    expect(done).toMatchObject({ status: "failed", error: { code: "agent_error", message: "The repository is archived; unarchive it first." } });
  });

  it("the runtime's own errors keep their message", async () => {
    worker.send({ type: "run.start", runId: "r1", sessionId: "s-1", functionName: "test.ask", input: { prompt: "Env?" }, canAsk: false, journal: [] });
    const done = await worker.finished("r1");
    expect(done).toMatchObject({ status: "failed", error: { code: "cannot_ask", message: 'Nobody can answer "Env?" in this run.' } });
  });
});

describe("the agent worker's stray errors and timers", () => {
  it("an uncaught exception from a run's timer fails that run, not the run beside it in the same worker, and the worker retires", async () => {
    worker.start("bad", "test.timer-throws", { delayMs: 200, workMs: 5_000, message: "timer exploded near token=xyz" });
    worker.start("bystander", "test.busy", { workMs: 1_000 });

    const bad = await worker.finished("bad");
    expect(bad.status).toBe("failed");
    expect(bad.error!.message).toBe("test.timer-throws stopped because of an unexpected error.");
    expect(bad.error!.detail).toContain("timer exploded near token=xyz");
    const retiring = worker.received.findIndex((m) => m.type === "worker.retiring");
    expect(retiring).toBeGreaterThanOrEqual(0);
    expect(retiring).toBeLessThan(worker.received.indexOf(bad));

    expect(await worker.finished("bystander")).toMatchObject({ status: "succeeded" });
    expect(worker.exit).toBeNull();
    // The failed run's own end (its sleep) is nobody's news: it finished once.
    expect(worker.received.filter((m) => m.type === "run.finished" && m.runId === "bad")).toHaveLength(1);
  });

  it("a parked run's timers and intervals are cleared: they never fire into the next run's turn", async () => {
    worker.start("parked", "test.stray", { delayMs: 300 });
    await worker.next((m) => m.type === "question.ask" && m.runId === "parked");
    worker.send({ type: "run.park", runId: "parked" });
    const parked = await worker.next((m) => m.type === "run.parked" && m.runId === "parked");
    expect(parked).toMatchObject({ parked: true });
    const afterPark = worker.received.length;

    worker.start("bystander", "test.busy", { workMs: 1_000 });
    expect(await worker.finished("bystander")).toMatchObject({ status: "succeeded" });
    expect(worker.exit).toBeNull();
    expect(worker.received.slice(afterPark).filter((m) => "runId" in m && m.runId === "parked")).toEqual([]);
    expect(worker.received.some((m) => m.type === "worker.retiring")).toBe(false);
  });
});
