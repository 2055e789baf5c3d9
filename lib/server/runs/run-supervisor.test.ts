import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { QuestionSpecSchema } from "../../protocol/question";
import { FakeWorker, startFakeParley, until } from "../../../tests/helpers/fakes";
import { RunLeaseLost } from "../cluster/lease-fence";
import { moveWaiting } from "../store/runs/run-statements";
import { log } from "../log";
import { canMove, IllegalTransition, RUN_STATES, TRANSITIONS } from "./run-lifecycle";

type Fx = Awaited<ReturnType<typeof startFakeParley>>;
let fx: Fx;
let logged: MockInstance<typeof console.error>;
beforeEach(async () => {
  logged = vi.spyOn(console, "error");
  fx = await startFakeParley({ maxWorkers: 2, parkAfterMs: 3_000, stopGraceMs: 1_000 });
});
afterEach(async () => {
  await fx.close();
  // The chain logs what a handler threw: a move the table refuses must never happen.
  expect(logged.mock.calls.flat().filter((arg) => arg instanceof IllegalTransition)).toEqual([]);
  logged.mockRestore();
});

const stateOf = (runId: string) => fx.parley.runs.liveStates()[runId];
const statusOf = async (runId: string) => (await fx.parley.runs.getRun({ id: runId })).status;

async function start(policy = {}) {
  const session = await fx.parley.sessions.createSession();
  const run = await fx.parley.runs.startRun({ sessionId: session.id, functionName: "f", policy });
  const worker = await workerOf(run.id);
  await until(() => stateOf(run.id) === "working");
  return { run, worker, session };
}

/** The worker that was last told to start (or replay) this run, once it was told `starts` times (on `on`, the test's own fake by default). */
function workerOf(runId: string, starts = 1, on: Fx = fx): Promise<FakeWorker> {
  return until(() => {
    const all = on.pool.created.flatMap((w) =>
      w
        .sentOf("run.start")
        .filter((m) => m.runId === runId)
        .map(() => w),
    );
    return all.length >= starts ? all.at(-1)! : undefined;
  });
}

async function ask(worker: FakeWorker, runId: string, seq = 0, on: Fx = fx) {
  const questionId = randomUUID();
  const spec = QuestionSpecSchema.parse({ kind: "question", prompt: `Question ${seq}?`, timeoutMs: null });
  worker.say({ type: "question.ask", runId, seq, digest: `d${seq}`, questionId, spec });
  await until(() => on.parley.runs.liveStates()[runId] === "waiting");
  return questionId;
}

async function parkInFlight(worker: FakeWorker, runId: string) {
  fx.clock.advance(3_000);
  await until(() => worker.sentOf("run.park").length > 0 && stateOf(runId) === "parking");
}

const finished = (worker: FakeWorker, runId: string, status: "succeeded" | "failed" | "cancelled", result: unknown = null) =>
  worker.say({ type: "run.finished", runId, status, result, ...(status === "succeeded" ? {} : { error: { code: "run_cancelled", message: "Stopped by the person." } }) });

describe("the run lifecycle table", () => {
  it("names the moves of every state; parked and elsewhere move nowhere, finished only elsewhere; an unlisted move is refused", () => {
    for (const from of RUN_STATES) for (const to of RUN_STATES) expect(canMove(from, to)).toBe(TRANSITIONS[from].includes(to));
    expect(TRANSITIONS.finished).toEqual(["elsewhere"]);
    expect(TRANSITIONS.parked).toEqual([]);
    expect(TRANSITIONS.elsewhere).toEqual([]);
    expect(TRANSITIONS.stopping).toEqual(["finished", "elsewhere"]);
    expect(new IllegalTransition("r", "finished", "working").message).toMatch(/cannot move from finished to working/);
  });
});

describe("a run under its supervisor (fake worker, fake clock)", () => {
  it("starting → working in a worker; a question makes it waiting and pauses its execution clock", async () => {
    const { run, worker } = await start();
    expect(worker.sentOf("run.start")[0]).toMatchObject({ runId: run.id, journal: [] });
    fx.clock.advance(500);
    await ask(worker, run.id);
    expect(await statusOf(run.id)).toBe("waiting_input");
    expect((await fx.parley.runs.getRun({ id: run.id })).activeMs).toBe(500);
  });

  it("a question and its run's move to waiting_input are one commit: announced, the run already waits, its time until the question stored", async () => {
    const { run, worker } = await start();
    fx.clock.advance(300);
    const seenAtAnnounce = new Promise<{ status: string; activeMs: number }>((resolve) => fx.parley.events.once("question.asked", () => void fx.parley.runs.getRun({ id: run.id }).then(resolve)));
    await ask(worker, run.id);
    expect(await seenAtAnnounce).toMatchObject({ status: "waiting_input", activeMs: 300 });
    // Time the run spends waiting is not counted, whenever the supervisor hears the question was stored.
    fx.clock.advance(200);
    expect((await fx.parley.runs.getRun({ id: run.id })).activeMs).toBe(300);
  });

  describe("finish and stop", () => {
    it("finish, then stop: the run keeps succeeded with its result, and the stop does not claim it", async () => {
      const { run, worker } = await start();
      finished(worker, run.id, "succeeded", { done: true });
      const stopped = await fx.parley.runs.stopRun({ id: run.id });
      expect(stopped).toMatchObject({ status: "succeeded", result: { done: true } });
      expect(["finished_first", "already_ended"]).toContain(stopped.receipt.outcome);
    });

    it("stop, then the function returns anyway: succeeded wins, and the stop says finished_first", async () => {
      const { run, worker, session } = await start();
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      expect(stateOf(run.id)).toBe("stopping");
      finished(worker, run.id, "succeeded", { done: true });
      const stopped = await stopping;
      expect(stopped).toMatchObject({ status: "succeeded", result: { done: true }, error: null });
      expect(stopped.receipt).toMatchObject({ kind: "stop_run", outcome: "finished_first", apply_state: "target_closed" });
      const texts = (await fx.parley.sessions.getSnapshot({ id: session.id })).messages.map((m) => m.text);
      expect(texts.some((t) => /stopped/i.test(t))).toBe(false);
    });

    it("a stop cut off after it cancelled the questions (its node died): the run, replayed, fails its cancelled ask and ends cancelled, not failed", async () => {
      // Found by the cluster fault trials (seed 7, trial 15): the replay's ask threw RunCancelled with the stop's reason, reported as failed.
      const { run, worker } = await start();
      const errors = vi.spyOn(log, "error");
      await ask(worker, run.id);
      await fx.parley.questions.closeForRun({ runId: run.id, status: "cancelled", by: "stop", feedback: "Stopped by you." });
      // No stop intent on this node: the worker's function ends by the cancelled question, not by an abort.
      worker.say({ type: "run.finished", runId: run.id, status: "failed", result: null, error: { code: "run_cancelled", message: "Stopped by you." } });
      await until(async () => (await statusOf(run.id)) !== "waiting_input" && (await statusOf(run.id)) !== "running");
      expect(await fx.parley.runs.getRun({ id: run.id })).toMatchObject({ status: "cancelled", error: "Stopped by you." });
      // Stopped, not failed: nothing about it is logged as an error.
      expect(errors.mock.calls.filter(([fields]) => (fields as { runId?: string }).runId === run.id)).toEqual([]);
      errors.mockRestore();
    });

    it("stop, then the function ends by the cancel: cancelled, and the stop says stopped", async () => {
      const { run, worker, session } = await start();
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      finished(worker, run.id, "cancelled");
      const stopped = await stopping;
      expect(stopped).toMatchObject({ status: "cancelled", error: "Stopped by you." });
      expect(stopped.receipt).toMatchObject({ outcome: "stopped", apply_state: "applied" });
      expect(fx.pool.released).toContain(worker);
      // The transcript says who stopped it.
      const texts = (await fx.parley.sessions.getSnapshot({ id: session.id })).messages.map((m) => m.text);
      expect(texts).toContain("Stopped by you.");
    });

    it("a stop from the CLI says so in the transcript", async () => {
      const { run, worker, session } = await start();
      const stopping = fx.parley.runs.stopRun({ id: run.id, by: "cli" });
      await until(() => worker.sentOf("run.cancel").length === 1);
      finished(worker, run.id, "cancelled");
      expect(await stopping).toMatchObject({ status: "cancelled", error: "Stopped from the CLI." });
      const texts = (await fx.parley.sessions.getSnapshot({ id: session.id })).messages.map((m) => m.text);
      expect(texts).toContain("Stopped from the CLI.");
    });

    it("a worker that ignores the stop is killed when its grace runs out, and the run ends cancelled", async () => {
      const { run, worker } = await start();
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      fx.clock.advance(999);
      expect(worker.killed).toEqual([]);
      fx.clock.advance(1);
      const stopped = await stopping;
      expect(worker.killed).toEqual(["SIGKILL"]);
      expect(stopped).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });
      expect(stopped.error).toMatch(/killed \(signal SIGKILL\)/);
    });
  });

  describe("stop and park", () => {
    it("park on its way, then stop, then the worker says it parked: cancelled, and never started again", async () => {
      const { run, worker } = await start();
      await ask(worker, run.id);
      await parkInFlight(worker, run.id);
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      worker.say({ type: "run.parked", runId: run.id, parked: true });
      const stopped = await stopping;
      expect(stopped).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });
      expect(fx.pool.created.flatMap((w) => w.sentOf("run.start"))).toHaveLength(1);
      expect(fx.parley.runs.liveCount()).toBe(0);
    });

    it("park on its way, the worker is busy (parked: false), then stop: the cancel ends it", async () => {
      const { run, worker } = await start();
      await ask(worker, run.id);
      await parkInFlight(worker, run.id);
      worker.say({ type: "run.parked", runId: run.id, parked: false });
      await until(() => stateOf(run.id) === "waiting");
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      finished(worker, run.id, "cancelled");
      expect(await stopping).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });
    });

    it("stop, then the park timer: no park is sent to a stopping run", async () => {
      const { run, worker } = await start();
      await ask(worker, run.id);
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      fx.clock.advance(3_000);
      expect(worker.sentOf("run.park")).toHaveLength(0);
      finished(worker, run.id, "cancelled");
      expect(await stopping).toMatchObject({ status: "cancelled" });
    });

    it("a parked run is stopped without a worker, and an answer racing the stop cannot start it", async () => {
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      await parkInFlight(worker, run.id);
      worker.say({ type: "run.parked", runId: run.id, parked: true });
      await until(() => fx.parley.runs.liveCount() === 0);
      // An answer that wins the race wakes the run; the stop then cancels it in its worker, which ends it.
      const cancelled = new Set<FakeWorker>();
      const endOnCancel = setInterval(() => {
        for (const w of fx.pool.created) {
          if (cancelled.has(w) || !w.sentOf("run.cancel").some((m) => m.runId === run.id)) continue;
          cancelled.add(w);
          w.say({ type: "run.finished", runId: run.id, status: "cancelled" });
        }
      }, 2);
      const [stopped, reply] = await Promise.all([fx.parley.runs.stopRun({ id: run.id }), fx.parley.questions.reply({ id: questionId, value: "x", by: "rest" })]).finally(() =>
        clearInterval(endOnCancel),
      );
      expect(stopped.status).toBe("cancelled");
      expect(["answered", "already_closed"]).toContain(reply.outcome);
      await new Promise((r) => setTimeout(r, 50));
      const starts = fx.pool.created.flatMap((w) => w.sentOf("run.start"));
      // A stop that came first leaves the answer nothing to start.
      if (reply.outcome === "already_closed") expect(starts).toHaveLength(1);
      else expect(starts.length).toBeLessThanOrEqual(2);
      if (starts.length === 2) expect(cancelled.size).toBe(1);
      expect(fx.parley.runs.liveCount()).toBe(0);
    });
  });

  describe("park and answer", () => {
    it("park on its way, then the answer, then parked: the run is replayed at once in the same worker with the answer", async () => {
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      await parkInFlight(worker, run.id);
      await fx.parley.questions.reply({ id: questionId, value: "blue", by: "rest" });
      worker.say({ type: "run.parked", runId: run.id, parked: true });
      const again = await workerOf(run.id, 2);
      expect(again).toBe(worker);
      expect(worker.sentOf("run.start")[1]!.journal).toEqual([{ kind: "question", seq: 0, digest: "d0", questionId, settlement: { outcome: "answered", value: "blue", feedback: null } }]);
      await until(() => stateOf(run.id) === "working");
      expect((await fx.parley.runs.getRun({ id: run.id })).attempts).toBe(2);
    });

    it("the answer, then the park timer: a working run is not parked", async () => {
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      await fx.parley.questions.reply({ id: questionId, value: "blue", by: "rest" });
      await until(() => stateOf(run.id) === "working");
      expect(worker.sentOf("question.settled")).toMatchObject([{ questionId, outcome: "answered", value: "blue" }]);
      fx.clock.advance(10_000);
      expect(worker.sentOf("run.park")).toHaveLength(0);
    });

    it("an answer leaves the run's status to its supervisor: the worker has the answer before the run is written as running", async () => {
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      const toldFirst: boolean[] = [];
      fx.parley.events.on("run.updated", (updated) => {
        if (updated.id === run.id && updated.status === "running") toldFirst.push(worker.sentOf("question.settled").length === 1);
      });
      await fx.parley.questions.reply({ id: questionId, value: "blue", by: "rest" });
      await until(() => toldFirst.length > 0);
      expect(toldFirst).toEqual([true]);
      expect(await statusOf(run.id)).toBe("running");
    });

    it("a live worker is handed the answer before the tabs hear the retraction (in the same turn, not a few microtasks later)", async () => {
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      const toldWhenRetracted: number[] = [];
      fx.parley.events.on("question.closed", (q) => {
        if (q.id === questionId) toldWhenRetracted.push(worker.sentOf("question.settled").length);
      });
      await fx.parley.questions.reply({ id: questionId, value: "blue", by: "rest" });
      expect(toldWhenRetracted).toEqual([1]);
    });

    it("the worker's next line is not held behind its run's move to running; its next question waits for that move", async () => {
      const { run, worker, session } = await start();
      const questionId = await ask(worker, run.id);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const write = fx.db.exec.write.bind(fx.db.exec);
      const writes = vi.spyOn(fx.db.exec, "write").mockImplementation(async (statement, params) => {
        if (statement === moveWaiting && (params as { to: string }).to === "running") await held;
        return write(statement, params);
      });
      await fx.parley.questions.reply({ id: questionId, value: "blue", by: "rest" });
      await until(() => worker.sentOf("question.settled").length === 1);
      worker.say({ type: "run.say", runId: run.id, seq: 1, digest: "s1", text: "next line" });
      await until(async () => (await fx.fixture.message.findFirst({ where: { sessionId: session.id, text: "next line" } })) !== null);
      expect(await statusOf(run.id)).toBe("waiting_input");
      const second = randomUUID();
      worker.say({ type: "question.ask", runId: run.id, seq: 2, digest: "d2", questionId: second, spec: QuestionSpecSchema.parse({ kind: "question", prompt: "Again?", timeoutMs: null }) });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await fx.fixture.question.findUnique({ where: { id: second } })).toBeNull();
      release();
      await until(async () => (await fx.fixture.question.findUnique({ where: { id: second } })) !== null && stateOf(run.id) === "waiting");
      await until(async () => (await statusOf(run.id)) === "waiting_input");
      writes.mockRestore();
    });

    it("a parked run's answer loads it into a worker by replay", async () => {
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      await parkInFlight(worker, run.id);
      worker.say({ type: "run.parked", runId: run.id, parked: true });
      await until(() => fx.parley.runs.liveCount() === 0);
      expect(await statusOf(run.id)).toBe("waiting_input");
      await fx.parley.questions.reply({ id: questionId, value: "red", by: "rest" });
      const again = await workerOf(run.id, 2);
      expect(again.sentOf("run.start").at(-1)!.journal[0]).toMatchObject({ settlement: { value: "red" } });
    });
  });

  describe("answer and stop", () => {
    it("the answer, then stop: the function got the answer, and the stop ends the run", async () => {
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      expect((await fx.parley.questions.reply({ id: questionId, value: "a", by: "rest" })).outcome).toBe("answered");
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      expect(worker.sentOf("question.settled")).toMatchObject([{ questionId, outcome: "answered" }]);
      finished(worker, run.id, "cancelled");
      expect(await stopping).toMatchObject({ status: "cancelled" });
    });

    it("stop, then the answer: the question was cancelled by the stop and the late reply is told so", async () => {
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      const late = await fx.parley.questions.reply({ id: questionId, value: "a", by: "rest" });
      expect(late).toMatchObject({ outcome: "already_closed", question: { status: "cancelled", closedBy: "stop" } });
      finished(worker, run.id, "cancelled");
      await stopping;
      expect(worker.sentOf("question.settled").filter((m) => m.outcome === "answered")).toEqual([]);
    });
  });

  describe("the worker exits", () => {
    it("while working: the run is replayed in a new worker, and counted as an attempt", async () => {
      const { run, worker } = await start();
      worker.exit();
      const again = await workerOf(run.id, 2);
      expect(again).not.toBe(worker);
      await until(() => stateOf(run.id) === "working");
      expect(await fx.parley.runs.getRun({ id: run.id })).toMatchObject({ status: "running", attempts: 2 });
    });

    it("while waiting: nothing is lost; the run parks with its question pending", async () => {
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      worker.exit();
      await until(() => fx.parley.runs.liveCount() === 0);
      expect((await fx.parley.questions.getQuestion({ id: questionId })).status).toBe("pending");
      expect(await statusOf(run.id)).toBe("waiting_input");
    });

    it("while parking: the run parks", async () => {
      const { run, worker } = await start();
      await ask(worker, run.id);
      await parkInFlight(worker, run.id);
      worker.exit();
      await until(() => fx.parley.runs.liveCount() === 0);
      expect(await statusOf(run.id)).toBe("waiting_input");
    });

    it("while stopping: the run ends cancelled and says the worker was gone", async () => {
      const { run, worker } = await start();
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      worker.exit({ code: 1, signal: null });
      expect(await stopping).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });
    });

    it("after the run finished: nothing changes, and no bystander is touched", async () => {
      const { run, worker } = await start();
      finished(worker, run.id, "succeeded", 1);
      await until(async () => (await statusOf(run.id)) === "succeeded");
      const next = await start();
      expect(next.worker).toBe(worker);
      worker.exit();
      expect(await statusOf(run.id)).toBe("succeeded");
      await workerOf(next.run.id, 2);
      expect(await statusOf(next.run.id)).toBe("running");
    });
  });

  describe("starting", () => {
    it("stop while the run waits for a worker: it ends at once, and the worker that frees up later is not used for it", async () => {
      const a = await start();
      const b = await start();
      const session = await fx.parley.sessions.createSession();
      const queued = await fx.parley.runs.startRun({ sessionId: session.id, functionName: "f" });
      await until(() => fx.pool.queued === 1);
      expect(stateOf(queued.id)).toBe("starting");
      expect(await fx.parley.runs.stopRun({ id: queued.id })).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });
      finished(a.worker, a.run.id, "succeeded");
      await until(() => fx.pool.queued === 0);
      await new Promise((r) => setTimeout(r, 30));
      expect(fx.pool.created.flatMap((w) => w.sentOf("run.start")).filter((m) => m.runId === queued.id)).toEqual([]);
      expect(b.run.id).toBeTruthy();
    });

    it("a worker that cannot start fails the run with a reason a person can read", async () => {
      const err = Object.assign(new Error("No worker process could be started (3 tries)."), { name: "WorkerStartError", detail: "SyntaxError in agent module" });
      fx.pool.failNext = err;
      const session = await fx.parley.sessions.createSession();
      const run = await fx.parley.runs.startRun({ sessionId: session.id, functionName: "f" });
      await until(async () => (await statusOf(run.id)) === "failed");
      expect((await fx.parley.runs.getRun({ id: run.id })).error).toBe("No worker process could be started (3 tries).");
    });
  });

  describe("database errors", () => {
    it("a run the database fails to load gives its worker back and is loaded again later", async () => {
      // A fresh run needs no reads to start: the failing load is its replay once it is answered.
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      await parkInFlight(worker, run.id);
      worker.say({ type: "run.parked", runId: run.id, parked: true });
      await until(() => fx.parley.runs.liveCount() === 0);
      const { store } = fx.parley.runs;
      const loadJournal = store.loadJournal;
      let failures = 1;
      store.loadJournal = async (id) => {
        if (failures-- > 0) throw new Error("database is locked");
        return loadJournal(id);
      };
      const released = fx.pool.released.length;
      await fx.parley.questions.reply({ id: questionId, value: "x", by: "rest" });
      await until(() => fx.pool.released.length === released + 1 && fx.clock.pending === 1);
      expect(fx.pool.created.flatMap((w) => w.sentOf("run.start"))).toHaveLength(1);
      fx.clock.advance(500);
      const again = await workerOf(run.id, 2);
      expect(again.sentOf("run.start").at(-1)!.journal).toMatchObject([{ kind: "question", questionId, settlement: { outcome: "answered", value: "x" } }]);
      await until(() => stateOf(run.id) === "working");
    });

    it("a child run the database fails to store fails the call at once instead of leaving it waiting", async () => {
      const { run, worker } = await start();
      const { store } = fx.parley.runs;
      store.createChild = async () => {
        throw new Error("database is locked");
      };
      worker.say({ type: "run.call", runId: run.id, seq: 0, digest: "c0", functionName: "g", input: null });
      const settled = await until(() => worker.sentOf("call.settled")[0]);
      expect(settled).toMatchObject({ seq: 0, status: "failed", error: expect.stringMatching(/^g could not be started/) });
    });
  });

  describe("recording the end", () => {
    it("a database error while recording the end is retried until it lands: the run never stays active with nobody to end it", async () => {
      const { run, worker } = await start();
      const { store } = fx.parley.runs;
      const finish = store.finish;
      let failures = 1;
      store.finish = async (...args) => {
        if (failures-- > 0) throw new Error("database is locked");
        return finish(...args);
      };
      finished(worker, run.id, "succeeded", { done: true });
      // The write failed once; its retry waits on the clock (the only timer left to a finished run).
      await until(() => failures === 0 && fx.clock.pending === 1);
      expect(await statusOf(run.id)).toBe("running");
      expect(stateOf(run.id)).toBe("finished");
      fx.clock.advance(500);
      await until(() => fx.parley.runs.liveCount() === 0);
      expect(await fx.parley.runs.getRun({ id: run.id })).toMatchObject({ status: "succeeded", result: { done: true } });
    });
  });

  describe("timers", () => {
    it("the execution time limit counts working time only, then fails the run with the reason", async () => {
      const { run, worker } = await start({ maxActiveMs: 1_000 });
      const questionId = await ask(worker, run.id);
      fx.clock.advance(2_500);
      expect(worker.sentOf("run.cancel")).toEqual([]);
      await fx.parley.questions.reply({ id: questionId, value: "ok", by: "rest" });
      await until(() => stateOf(run.id) === "working");
      fx.clock.advance(1_000);
      await until(() => worker.sentOf("run.cancel").length === 1);
      finished(worker, run.id, "cancelled");
      await until(async () => (await statusOf(run.id)) === "failed");
      expect((await fx.parley.runs.getRun({ id: run.id })).error).toMatch(/execution time limit of 1 s/);
    });

    it("when runs queue for a worker, the run that has waited longest parks at once, without waiting for its timer", async () => {
      const a = await start();
      await ask(a.worker, a.run.id);
      fx.clock.advance(10);
      const b = await start();
      await ask(b.worker, b.run.id);
      const session = await fx.parley.sessions.createSession();
      const c = await fx.parley.runs.startRun({ sessionId: session.id, functionName: "f" });
      await until(() => a.worker.sentOf("run.park").length === 1);
      expect(b.worker.sentOf("run.park")).toHaveLength(0);
      a.worker.say({ type: "run.parked", runId: a.run.id, parked: true });
      expect(await workerOf(c.id)).toBe(a.worker);
    });
  });

  describe("races", () => {
    it("the worker says the run finished just as the stop's grace runs out: it is not killed, nor the runs beside it", async () => {
      const { run, worker } = await start();
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      fx.clock.advance(999);
      // Heard before the chain handles it: the grace timer fires in the same tick.
      finished(worker, run.id, "cancelled");
      fx.clock.advance(1);
      expect(await stopping).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });
      expect(worker.killed).toEqual([]);
    });

    it("stopping, the worker says the run finished and exits at once: the run ends once, by the stop, and its worker is given back once", async () => {
      const { run, worker } = await start();
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      await until(() => worker.sentOf("run.cancel").length === 1);
      finished(worker, run.id, "cancelled");
      worker.exit({ code: 0, signal: null });
      expect(await stopping).toMatchObject({ status: "cancelled", error: "Stopped by you.", receipt: { outcome: "stopped" } });
      expect(fx.pool.released.filter((w) => w === worker)).toHaveLength(1);
      expect(fx.parley.runs.liveCount()).toBe(0);
    });

    it("a stop and the worker's exit arrive together while it works: the run ends cancelled and is never replayed", async () => {
      const { run, worker } = await start();
      const stopping = fx.parley.runs.stopRun({ id: run.id });
      worker.exit({ code: 1, signal: null });
      // Whichever the chain handles first, a replayed worker (if any) is cancelled and ends the run.
      const endOnCancel = setInterval(() => {
        for (const w of fx.pool.created) if (w !== worker && w.sentOf("run.cancel").length === 1 && w.alive) finished(w, run.id, "cancelled");
      }, 2);
      const stopped = await stopping.finally(() => clearInterval(endOnCancel));
      expect(stopped).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });
      expect(fx.parley.runs.liveCount()).toBe(0);
    });

    it("an answer arrives while parking and the worker is busy: the worker has the answer and the run works on in it", async () => {
      const { run, worker } = await start();
      const questionId = await ask(worker, run.id);
      await parkInFlight(worker, run.id);
      await fx.parley.questions.reply({ id: questionId, value: "blue", by: "rest" });
      await until(() => worker.sentOf("question.settled").length === 1);
      expect(stateOf(run.id)).toBe("parking");
      worker.say({ type: "run.parked", runId: run.id, parked: false });
      await until(() => stateOf(run.id) === "working");
      expect(worker.sentOf("question.settled")).toMatchObject([{ questionId, outcome: "answered", value: "blue" }]);
      // Back to working, the supervisor then stores `running` (syncWaiting): a read right after the move may come first.
      await until(async () => (await statusOf(run.id)) === "running");
      expect(fx.pool.created.flatMap((w) => w.sentOf("run.start"))).toHaveLength(1);
      // Working again: its park timer is gone with its waiting.
      fx.clock.advance(10_000);
      expect(worker.sentOf("run.park")).toHaveLength(1);
    });

    it("another node takes the run over while this one records its end: it lets go without writing, and leaves the live set", async () => {
      const { run, worker } = await start();
      const { store } = fx.parley.runs;
      store.finish = async () => {
        throw new RunLeaseLost(run.id);
      };
      finished(worker, run.id, "succeeded", { done: true });
      await until(() => fx.parley.runs.liveCount() === 0);
      expect(await statusOf(run.id)).toBe("running");
      expect(fx.pool.released).toContain(worker);
    });
  });
});

describe("a run's start while its commit is made durable (SQLite at FULL)", () => {
  /** Runs `work` on a fake Parley whose WAL syncs wait for the test while `hold.on` (`release` ends them), then closes it. */
  async function withHeldSyncs(work: (h: { own: Fx; hold: { on: boolean; held: Array<() => void> }; release: () => void }) => Promise<void>) {
    const hold = { on: false, held: [] as Array<() => void> };
    const own = await startFakeParley({ syncWal: () => (hold.on ? new Promise<void>((resolve) => hold.held.push(resolve)) : Promise.resolve()) });
    const release = () => {
      hold.on = false;
      for (const r of hold.held.splice(0)) r();
    };
    try {
      await work({ own, hold, release });
    } finally {
      release();
      await own.close();
    }
  }

  it.skipIf(Boolean(process.env.PARLEY_TEST_PG_URL))("a Stop that comes before the run's commit is durable stops the run once it is: cancelled, and the stop says stopped", async () =>
    withHeldSyncs(async ({ own, hold, release }) => {
      const session = await own.parley.sessions.createSession();
      hold.on = true;
      const starting = own.parley.runs.startRun({ sessionId: session.id, functionName: "f" });
      const told = await until(() => own.pool.created.flatMap((w) => w.sentOf("run.start").map((m) => ({ w, m })))[0]);
      const stopping = own.parley.runs.stopRun({ id: told.m.runId });
      expect(hold.held.length).toBeGreaterThan(0);
      release();
      expect((await starting).id).toBe(told.m.runId);
      await until(() => told.w.sentOf("run.cancel").length === 1);
      finished(told.w, told.m.runId, "cancelled");
      const stopped = await stopping;
      expect(stopped).toMatchObject({ status: "cancelled" });
      expect(stopped.receipt).toMatchObject({ outcome: "stopped", apply_state: "applied" });
    }),
  );

  it.skipIf(Boolean(process.env.PARLEY_TEST_PG_URL))("its worker starts before the WAL is synced; the start answers once it is", async () =>
    withHeldSyncs(async ({ own, hold, release }) => {
      const session = await own.parley.sessions.createSession();
      hold.on = true;
      let answered = false;
      const starting = own.parley.runs.startRun({ sessionId: session.id, functionName: "f" }).then((run) => ((answered = true), run));
      const told = await until(() => own.pool.created.flatMap((w) => w.sentOf("run.start"))[0]);
      expect(hold.held.length).toBeGreaterThan(0);
      expect(answered).toBe(false);
      release();
      const run = await starting;
      expect(told.runId).toBe(run.id);
      expect(run.status).toBe("running");
    }),
  );

  it.skipIf(Boolean(process.env.PARLEY_TEST_PG_URL))("a parked run's replay: its worker starts as the attempt's count is committed, before that is synced", async () =>
    withHeldSyncs(async ({ own, hold, release }) => {
      const session = await own.parley.sessions.createSession();
      const run = await own.parley.runs.startRun({ sessionId: session.id, functionName: "f" });
      const worker = await workerOf(run.id, 1, own);
      const questionId = await ask(worker, run.id, 0, own);
      own.clock.advance(60_000);
      await until(() => worker.sentOf("run.park").length > 0);
      worker.say({ type: "run.parked", runId: run.id, parked: true });
      await until(() => own.parley.runs.liveCount() === 0);
      // Held from the attempt's count on: the answer before it is durable, the count is not.
      const { store } = own.parley.runs;
      const markAttempt = store.markAttempt.bind(store);
      let counted = false;
      store.markAttempt = async (...args) => {
        hold.on = true;
        const marked = await markAttempt(...args);
        counted = true;
        return marked;
      };
      await own.parley.questions.reply({ id: questionId, value: "red", by: "rest" });
      const again = await workerOf(run.id, 2, own);
      expect(hold.held.length).toBe(1);
      expect(counted).toBe(false);
      expect(again.sentOf("run.start").at(-1)!.journal[0]).toMatchObject({ settlement: { value: "red" } });
      release();
      await until(() => counted);
      expect(await own.parley.runs.getRun({ id: run.id })).toMatchObject({ status: "running", attempts: 2 });
    }),
  );
});
