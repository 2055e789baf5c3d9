import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { QuestionSpecSchema } from "../../protocol/question";
import { ManualClock, skewedClock, until } from "../../../tests/helpers/fakes";
import { connectNodes, sleep, startNode, startOn, startsOf, workerOf, type TestNode } from "../../../tests/helpers/nodes";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";

// Leases are times on the database's clock, and a lease's epoch fences every write of the node
// that executes the run. Nodes here share one database (SQLite, or PostgreSQL with
// PARLEY_TEST_PG_URL) and a bus, each with its own clock; leases lapse in real time.
// Renewed every third of it: long enough that a busy test machine does not let a live lease lapse.
const LEASE_MS = 1_000;
/** Far more than a lease: a node this far ahead or behind would read every lease wrong by its own clock. */
const SKEW_MS = 10 * 60_000;

let testDb: TestDatabase;
let clock: ManualClock;
let nodes: TestNode[];
let fixture: FixtureDb;

/** A node whose clock runs `skewMs` ahead of the others (behind when negative). */
async function node(skewMs = 0, leaseMs = LEASE_MS): Promise<TestNode> {
  const started = await startNode(testDb.url, { clock: skewedClock(clock, skewMs), leaseMs });
  nodes.push(started);
  connectNodes(nodes);
  return started;
}

const leaseOf = async (runId: string) => (await fixture.run.findUnique({ where: { id: runId }, select: { leaseOwner: true, leaseEpoch: true } }))!;

beforeEach(async () => {
  testDb = await createTestDatabase("parley_leases");
  fixture = await openFixtureDb(testDb.url);
  clock = new ManualClock();
  nodes = [];
});

afterEach(async () => {
  for (const n of nodes) await n.parley.close().catch(() => {});
  await fixture.$disconnect();
  await testDb.drop();
});

describe("run leases on the database's clock", () => {
  it("a node whose clock runs minutes ahead does not take over a run whose node is alive", async () => {
    const a = await node();
    const ahead = await node(SKEW_MS);
    const { run } = await startOn(a);
    ahead.parley.runs.activate(run.id);
    // Several of its takeover sweeps pass while node A renews.
    await sleep(3 * LEASE_MS);
    expect(startsOf(ahead, run.id)).toHaveLength(0);
    expect(a.parley.runs.liveStates()[run.id]).toBe("working");
    expect((await leaseOf(run.id)).leaseOwner).toBe(a.parley.node().id);
  });

  it("a node whose clock runs minutes behind keeps the run it executes: the others do not find its lease lapsed", async () => {
    const behind = await node(-SKEW_MS);
    const b = await node();
    const { run } = await startOn(behind);
    await sleep(3 * LEASE_MS);
    expect(startsOf(b, run.id)).toHaveLength(0);
    expect(behind.parley.runs.liveStates()[run.id]).toBe("working");
    expect((await leaseOf(run.id)).leaseOwner).toBe(behind.parley.node().id);
  });

  it("a node whose clock runs minutes ahead does not keep its lease alive once it is dead: another node takes the run over a lease later", async () => {
    const ahead = await node(SKEW_MS);
    const b = await node();
    const { run } = await startOn(ahead);
    ahead.parley.runs.detachAll();
    const replay = await workerOf(b, run.id, 1, 6 * LEASE_MS);
    expect(replay.sentOf("run.start")[0]!.runId).toBe(run.id);
    expect((await leaseOf(run.id)).leaseOwner).toBe(b.parley.node().id);
  });

  it("the expiry timers' lease is on the database's clock too: a node whose clock runs ahead does not take it from the live node that holds it", async () => {
    const a = await node();
    const ahead = await node(SKEW_MS);
    await sleep(3 * LEASE_MS);
    expect(a.parley.node().expiryTimers).toBe(true);
    expect(ahead.parley.node().expiryTimers).toBe(false);
  });
});

describe("the lease epoch fences the writes of the node that executes a run", () => {
  it("a node whose run another node took over cannot write for it with the epoch it held: its journal entry, status move, end, child run, message and question are refused and change nothing", async () => {
    const a = await node();
    const b = await node();
    const { run, session } = await startOn(a);
    const stale = (await leaseOf(run.id)).leaseEpoch;
    // Node A stops renewing (as if paused); node B takes the run over by replay, raising the epoch.
    a.parley.runs.detachAll();
    await workerOf(b, run.id, 1, 6 * LEASE_MS);
    expect((await leaseOf(run.id)).leaseEpoch).toBe(stale + 1);
    /** The run's row, but for the end of node B's lease, which B renews meanwhile. */
    const row = async () => {
      const { leaseUntil: _, ...rest } = (await fixture.run.findUnique({ where: { id: run.id } }))!;
      return rest;
    };
    const before = await row();

    const store = a.parley.runs.store;
    const lost = { name: "RunLeaseLost" };
    await expect(store.recordStep({ runId: run.id, seq: 0, name: "late", digest: "s0", output: 1 }, stale)).rejects.toMatchObject(lost);
    await expect(store.setWaiting(run.id, true, 500, stale)).rejects.toMatchObject(lost);
    await expect(store.addActiveMs(run.id, 500, stale)).rejects.toMatchObject(lost);
    await expect(store.markAttempt(run.id, stale)).rejects.toMatchObject(lost);
    await expect(store.setProgress(run.id, "late", stale)).rejects.toMatchObject(lost);
    await expect(store.finish(run.id, { status: "succeeded", result: "late" }, 100, stale)).rejects.toMatchObject(lost);
    await expect(store.createChild({ parent: run, childId: randomUUID(), seq: 0, digest: "c0", functionName: "f", input: null, known: true }, stale)).rejects.toMatchObject(lost);
    const say = { runId: run.id, seq: 0, text: "late", digest: "m0" };
    await expect(a.parley.sessions.addMessage({ sessionId: session.id, runId: run.id, role: "agent", text: "late" }, (row) => store.sayWithMessage(say, row, stale))).rejects.toMatchObject(lost);
    await expect(
      a.parley.sessions.addMessage({ sessionId: session.id, runId: run.id, role: "agent", text: "left open", stopped: true }, (row) => store.messageWhileHeld({ ...row, runId: run.id }, stale)),
    ).rejects.toMatchObject(lost);
    const spec = QuestionSpecSchema.parse({ kind: "question", prompt: "Late?", timeoutMs: null });
    await expect(
      a.parley.questions.create({
        id: randomUUID(),
        run: { id: run.id, sessionId: session.id, functionName: run.functionName, policy: run.policy, canAsk: true, rootRunId: run.rootRunId },
        seq: 0,
        digest: "q0",
        spec,
        epoch: stale,
      }),
    ).rejects.toMatchObject(lost);

    // Nothing changed: the run, its journal, its children, messages and questions are as node B left them.
    expect(await row()).toEqual(before);
    expect(await b.parley.runs.store.loadJournal(run.id)).toEqual([]);
    expect(await fixture.run.count({ where: { parentRunId: run.id } })).toBe(0);
    expect(await fixture.message.count({ where: { runId: run.id } })).toBe(0);
    expect(await fixture.question.count({ where: { runId: run.id } })).toBe(0);
    // Node B, which holds the epoch now, writes as usual.
    await b.parley.runs.store.recordStep({ runId: run.id, seq: 0, name: "fetch", digest: "s0", output: 42 }, stale + 1);
    expect(await b.parley.runs.store.loadJournal(run.id)).toHaveLength(1);
  });

  it("a node still executing a run that another node took over lets the run go at its next write: its worker's step is not journaled, its worker is told to cancel, and its end is not written", async () => {
    // A lease far longer than the test: node A's renewals do not find out first.
    const a = await node(0, 60_000);
    const { run, worker } = await startOn(a);
    // Another node took the run over meanwhile (A was paused longer than a lease, say).
    await fixture.run.update({ where: { id: run.id }, data: { leaseOwner: "another-node", leaseEpoch: { increment: 1 }, leaseUntil: new Date(Date.now() + 60_000) } });
    worker.say({ type: "step.record", runId: run.id, seq: 0, name: "fetch", digest: "s0", output: 42 });
    const cancel = await until(() => worker.sentOf("run.cancel")[0]);
    expect(cancel.runId).toBe(run.id);
    await until(() => a.parley.runs.liveCount() === 0);
    worker.say({ type: "run.finished", runId: run.id, status: "succeeded", result: "late" });
    await sleep(100);
    expect(await a.parley.runs.store.loadJournal(run.id)).toEqual([]);
    expect(await fixture.run.findUnique({ where: { id: run.id } })).toMatchObject({ status: "running", leaseOwner: "another-node", result: null });
  });
});
