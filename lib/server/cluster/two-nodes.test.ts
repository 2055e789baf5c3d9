import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { QuestionSpecSchema } from "../../protocol/question";
import type { Question } from "../../protocol/question";
import { ManualClock, until, type FakeWorker } from "../../../tests/helpers/fakes";
import { connectNodes, startNode, startOn, workerOf, type TestNode as Node } from "../../../tests/helpers/nodes";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";

// Two nodes on one database, with fake worker pools and an in-process bus between them: the
// run leases, cross-node delivery, takeover and the expiry timers' owner, without processes.
// Leases are on the database's clock: they lapse in real time, whatever the manual clock says.
// Renewed every third of it: long enough that a busy test machine does not let a live lease lapse.
const LEASE_MS = 1_000;

let testDb: TestDatabase;
let clock: ManualClock;
let nodes: Node[];
let fixture: FixtureDb;
let busUp = true;

beforeEach(async () => {
  busUp = true;
  testDb = await createTestDatabase("parley_nodes");
  fixture = await openFixtureDb(testDb.url);
  clock = new ManualClock();
  nodes = [await startNode(testDb.url, { clock, leaseMs: LEASE_MS }), await startNode(testDb.url, { clock, leaseMs: LEASE_MS })];
  connectNodes(nodes, () => busUp);
});

afterEach(async () => {
  for (const n of nodes) await n.parley.close().catch(() => {});
  await fixture.$disconnect();
  await testDb.drop();
});

async function ask(node: Node, worker: FakeWorker, runId: string, { seq = 0, timeoutMs = null as number | null } = {}): Promise<Question> {
  const questionId = randomUUID();
  const spec = QuestionSpecSchema.parse({ kind: "question", prompt: `Question ${seq}?`, timeoutMs });
  worker.say({ type: "question.ask", runId, seq, digest: `d${seq}`, questionId, spec });
  const stored = await until(() => node.parley.questions.getQuestion({ id: questionId }).catch(() => null));
  await until(() => node.parley.runs.liveStates()[runId] === "waiting");
  return stored;
}

/** The run's park timer fires and its worker lets go: the run is live nowhere. */
async function parkOn(node: Node, worker: FakeWorker, runId: string) {
  clock.advance(3_000);
  await until(() => worker.sentOf("run.park").length > 0);
  worker.say({ type: "run.parked", runId, parked: true });
  await until(() => node.parley.runs.liveCount() === 0);
}

describe("two nodes on one database", () => {
  it("an answer given on the other node reaches the worker where the run waits", async () => {
    const [a, b] = nodes as [Node, Node];
    const { run, worker } = await startOn(a);
    const q = await ask(a, worker, run.id);
    const receipt = await b.parley.questions.reply({ id: q.id, value: "yes", by: "rest" });
    expect(receipt.outcome).toBe("answered");
    const settled = await until(() => worker.sentOf("question.settled").find((m) => m.questionId === q.id));
    expect(settled.value).toBe("yes");
    // Node B never executed it: its attempt to wake the run found it held by node A.
    await until(() => b.parley.runs.liveCount() === 0);
    expect(b.pool.created.flatMap((w) => w.sentOf("run.start"))).toHaveLength(0);
  });

  it("a parked run answered on the other node is replayed there", async () => {
    const [a, b] = nodes as [Node, Node];
    const { run, worker } = await startOn(a);
    const q = await ask(a, worker, run.id);
    await parkOn(a, worker, run.id);
    await b.parley.questions.reply({ id: q.id, value: "go", by: "rest" });
    const replay = await workerOf(b, run.id);
    expect(replay.sentOf("run.start")[0]!.journal.map((e) => e.kind)).toEqual(["question"]);
    expect(a.pool.created.flatMap((w) => w.sentOf("run.start")).filter((m) => m.runId === run.id)).toHaveLength(1);
  });

  it("a stop given on the other node stops the run where it executes", async () => {
    const [a, b] = nodes as [Node, Node];
    const { run, worker } = await startOn(a);
    const stopping = b.parley.runs.stopRun({ id: run.id });
    const cancel = await until(() => worker.sentOf("run.cancel")[0]);
    expect(cancel.runId).toBe(run.id);
    worker.say({ type: "run.finished", runId: run.id, status: "cancelled", result: null, error: { code: "run_cancelled", message: "Stopped." } });
    const stopped = await stopping;
    expect(stopped.status).toBe("cancelled");
    expect(stopped.receipt.outcome).toBe("stopped");
  });

  it("a stop given while the run's node is dead: the stopping node waits for the lease to lapse, then stops the run itself", async () => {
    const [a, b] = nodes as [Node, Node];
    const { run } = await startOn(a);
    a.parley.runs.detachAll();
    const stopping = b.parley.runs.stopRun({ id: run.id });
    // Node A's lease lapses a lease later (by the database's clock); node B's sweep may wake the
    // run first: its worker hears the cancel and ends it.
    const answered = new Set<FakeWorker>();
    const answerCancels = setInterval(() => {
      for (const w of b.pool.created) {
        if (answered.has(w) || !w.sentOf("run.cancel").some((m) => m.runId === run.id)) continue;
        answered.add(w);
        w.say({ type: "run.finished", runId: run.id, status: "cancelled", result: null, error: { code: "run_cancelled", message: "Stopped." } });
      }
    }, 20);
    try {
      const stopped = await stopping;
      expect(stopped.status).toBe("cancelled");
      expect(stopped.receipt.outcome).toBe("stopped");
    } finally {
      clearInterval(answerCancels);
    }
  });

  it("a node that dies: its working run is taken over by replay once its lease lapses, and the dead node's end is refused", async () => {
    const [a, b] = nodes as [Node, Node];
    const { run, worker } = await startOn(a);
    worker.say({ type: "step.record", runId: run.id, seq: 0, name: "fetch", digest: "s0", output: 42 });
    await until(async () => (await a.parley.runs.store.loadJournal(run.id)).length === 1);
    // Node A stops renewing (as if killed): nothing hands its lease over.
    a.parley.runs.detachAll();
    expect(b.parley.runs.liveCount()).toBe(0);
    // Its lease lapses a lease later, and node B's sweep takes the run over.
    const replay = await workerOf(b, run.id);
    expect(replay.sentOf("run.start")[0]!.journal.map((e) => e.kind)).toEqual(["step"]);
    expect((await b.parley.runs.getRun({ id: run.id })).attempts).toBe(2);
    expect(await b.parley.metrics.registry.getSingleMetricAsString("parley_runs_taken_over_total")).toMatch(/^parley_runs_taken_over_total 1$/m);
    expect(await b.parley.metrics.registry.getSingleMetricAsString("parley_run_leases_held")).toMatch(/^parley_run_leases_held 1$/m);
    // The fence: node A can no longer write the run's end.
    expect(await a.parley.runs.store.finish(run.id, { status: "succeeded", result: "late" })).toBe(false);
    replay.say({ type: "run.finished", runId: run.id, status: "succeeded", result: "done" });
    await until(async () => (await b.parley.runs.getRun({ id: run.id })).status === "succeeded");
    expect((await b.parley.runs.getRun({ id: run.id })).result).toBe("done");
  });

  it("a run is executed by one node only, whichever wakes it", async () => {
    const [a, b] = nodes as [Node, Node];
    const { run, worker } = await startOn(a);
    await ask(a, worker, run.id);
    // Both nodes try to activate it at once: the lease lets one through (node A, which holds it).
    b.parley.runs.activate(run.id);
    a.parley.runs.activate(run.id);
    await until(() => b.parley.runs.liveCount() === 0);
    expect(b.pool.created.flatMap((w) => w.sentOf("run.start"))).toHaveLength(0);
  });

  it("a node woken for a run that has ended holds no lease on it afterwards", async () => {
    const [a, b] = nodes as [Node, Node];
    const { run, worker } = await startOn(a);
    worker.say({ type: "run.finished", runId: run.id, status: "succeeded", result: 1 });
    await until(async () => (await a.parley.runs.getRun({ id: run.id })).status === "succeeded");
    // The end is visible in the database a moment before its writer, which forgets the lease then, has finished.
    await until(() => a.parley.runs.liveCount() === 0);
    expect(a.parley.node().leasedRuns).toBe(0);
    b.parley.runs.activate(run.id);
    await until(() => b.parley.runs.liveCount() === 0);
    await until(async () => (await fixture.run.findUnique({ where: { id: run.id } }))?.leaseOwner === null);
    expect(b.parley.node().leasedRuns).toBe(0);
  });

  it("one node keeps the expiry timers: a question asked on the other expires once, and the timers move when that node goes", async () => {
    const [a, b] = nodes as [Node, Node];
    const closed: Question[] = [];
    for (const n of nodes) n.parley.events.on("question.closed", (q) => closed.push(q));
    const { run, worker } = await startOn(b);
    const q = await ask(b, worker, run.id, { timeoutMs: 300 });
    const settled = await until(() => worker.sentOf("question.settled").find((m) => m.questionId === q.id), 5_000);
    expect(settled.outcome).toBe("timed_out");
    expect(closed.filter((c) => c.id === q.id)).toHaveLength(1);

    // Node A (which took the timers first) goes; node B takes them over and expires what B's runs ask.
    await a.parley.close();
    nodes = [b];
    const second = await ask(b, worker, run.id, { seq: 1, timeoutMs: 300 });
    const later = await until(() => worker.sentOf("question.settled").find((m) => m.questionId === second.id), 5_000);
    expect(later.outcome).toBe("timed_out");
  });

  it("an answer that reaches a node while that node wakes the run, which the other node executes, is passed on to the other node", async () => {
    const [a, b] = nodes as [Node, Node];
    const { run, worker } = await startOn(a);
    const q = await ask(a, worker, run.id);
    // Node B starts to wake the run (a resume, say) and waits for a worker meanwhile.
    let giveWorker!: () => void;
    const gate = new Promise<void>((r) => (giveWorker = r));
    const acquire = b.pool.acquire.bind(b.pool);
    b.pool.acquire = async () => (await gate, acquire());
    b.parley.runs.activate(run.id);
    // The answer lands on node B while its supervisor of the run has no worker yet; then B finds node A holds the run.
    await b.parley.questions.reply({ id: q.id, value: "passed on", by: "rest" });
    giveWorker();
    await until(() => b.parley.runs.liveCount() === 0);
    // Node A's worker hears it without waiting for its park timer (the clock does not move: the wait is only a ceiling for a hang).
    const settled = await until(() => worker.sentOf("question.settled").find((m) => m.questionId === q.id));
    expect(settled.value).toBe("passed on");
    expect(b.pool.created.flatMap((w) => w.sentOf("run.start"))).toHaveLength(0);
  });

  it("a run replayed from a journal read just before its answer landed on the other node, with the bus down, is sent the answer by the replay itself", async () => {
    const [a, b] = nodes as [Node, Node];
    const { run, worker } = await startOn(a);
    const q = await ask(a, worker, run.id);
    await parkOn(a, worker, run.id);
    // Node A wakes the run (a resume); right after it read the journal, the question is answered on node B, whose word is lost.
    const store = a.parley.runs.store;
    const loadJournal = store.loadJournal.bind(store);
    store.loadJournal = async (id) => {
      const journal = await loadJournal(id);
      store.loadJournal = loadJournal;
      busUp = false;
      await b.parley.questions.reply({ id: q.id, value: "just after", by: "rest" });
      return journal;
    };
    a.parley.runs.activate(run.id);
    const replay = await workerOf(a, run.id, 2);
    expect(replay.sentOf("run.start").at(-1)!.journal[0]).toMatchObject({ kind: "question", settlement: null });
    const settled = await until(() => replay.sentOf("question.settled").find((m) => m.questionId === q.id));
    expect(settled.value).toBe("just after");
  });

  it("without the bus, an answer given on the other node still reaches the run: it wakes when its park timer fires", async () => {
    const [a, b] = nodes as [Node, Node];
    const { run, worker } = await startOn(a);
    const q = await ask(a, worker, run.id);
    busUp = false;
    await b.parley.questions.reply({ id: q.id, value: "late", by: "rest" });
    await new Promise((r) => setTimeout(r, 50));
    expect(worker.sentOf("question.settled")).toHaveLength(0);
    clock.advance(3_000);
    await until(() => worker.sentOf("run.park").length > 0);
    worker.say({ type: "run.parked", runId: run.id, parked: true });
    // Nothing waits on it any more: it is replayed at once, on node A, in the same worker.
    await until(() => worker.sentOf("run.start").length === 2);
  });
});
