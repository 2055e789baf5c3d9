import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../../protocol/policy";
import type { Db } from "../db/client";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../../tests/helpers/fixture-db";
import { DomainEvents } from "../../events";
import { createSessionService } from "../../sessions/session-service";
import { createRunStore, type RunStore } from "./run-store";

// The question loop's run queries on whichever engine the suite runs (SQLite, or
// PostgreSQL's with PARLEY_TEST_PG_URL): each must read back what Prisma reads.
let t: StoreTestDb;
let db: Db;
let fixture: FixtureDb;
let store: RunStore;

beforeEach(async () => {
  t = await openStoreTestDb("parley_runstore");
  ({ db, fixture } = t);
  store = createRunStore(db);
  await fixture.chatSession.create({ data: { id: "s1", title: "t" } });
  await store.create({ id: "r1", sessionId: "s1", ownerId: "local", functionName: "f", input: { a: 1 }, policy: DEFAULT_POLICY, canAsk: true });
});

afterEach(() => t.close());

const prismaRun = async (id: string) => {
  const row = (await fixture.run.findUnique({ where: { id } }))!;
  return { status: row.status, activeMs: row.activeMs, attempts: row.attempts, updatedAt: row.updatedAt.toISOString() };
};

describe("the run store's loop queries", () => {
  it("a run reads as Prisma reads it; a status move returns the run as it is then stored, with the active time it spent", async () => {
    expect(await store.find("r1")).toMatchObject({ id: "r1", status: "running", input: { a: 1 }, canAsk: true, attempts: 1 });
    const moved = await store.setWaiting("r1", true, 120);
    expect(moved).toMatchObject({ status: "waiting_input", activeMs: 120 });
    expect(await prismaRun("r1")).toMatchObject({ status: "waiting_input", activeMs: 120, updatedAt: moved!.updatedAt });
    expect(await store.find("r1")).toEqual(moved);
  });

  it("a move that does not apply returns null and keeps the time spent", async () => {
    expect(await store.setWaiting("r1", false, 50)).toBeNull();
    expect(await prismaRun("r1")).toMatchObject({ status: "running", activeMs: 50 });
    await store.addActiveMs("r1", 25);
    await store.markAttempt("r1");
    expect(await prismaRun("r1")).toMatchObject({ activeMs: 75, attempts: 2 });
  });

  it("a replay's attempt count puts an active run's status where its questions leave it, and leaves a run that ended as it ended", async () => {
    await store.setWaiting("r1", true);
    let handed = 0;
    expect(await store.markAttempt("r1", undefined, () => handed++)).toMatchObject({ status: "running", attempts: 2 });
    expect(await store.markAttempt("r1", undefined, () => handed++, { waiting: true })).toMatchObject({ status: "waiting_input", attempts: 3 });
    expect(handed).toBe(2);
    expect(await prismaRun("r1")).toMatchObject({ status: "waiting_input", attempts: 3 });
    expect(await store.finish("r1", { status: "cancelled" })).toBe(true);
    expect(await store.markAttempt("r1")).toMatchObject({ status: "cancelled", attempts: 4 });
  });

  it("what a run waits on: its own pending question, or an active child it called", async () => {
    expect(await store.waitingOn("r1")).toMatchObject({ questions: false, blocked: false });
    const parent = (await store.find("r1"))!;
    await store.createChild({ parent, childId: "c1", seq: 0, digest: "d", functionName: "f", input: null, known: true });
    expect(await store.waitingOn("r1")).toMatchObject({ questions: false, blocked: true });
    expect(await store.finish("c1", { status: "succeeded", result: 7 })).toBe(true);
    expect(await store.waitingOn("r1")).toMatchObject({ questions: false, blocked: false });
    expect(await store.loadJournal("r1")).toEqual([{ kind: "call", seq: 0, digest: "d", childRunId: "c1", settlement: { status: "succeeded", result: 7, error: null } }]);
  });

  it("a run's chat message and its journal entry are stored together, and read back as stored", async () => {
    const sessions = createSessionService({ db, events: new DomainEvents() });
    const say = { runId: "r1", seq: 3, text: "Hello **there**", digest: "ds" };
    const message = await sessions.addMessage({ sessionId: "s1", runId: "r1", role: "agent", text: say.text }, (row) => store.sayWithMessage(say, row));
    const stored = (await sessions.getSnapshot({ id: "s1" })).messages;
    expect(stored).toEqual([message]);
    expect(await store.loadJournal("r1")).toEqual([{ kind: "say", seq: 3, digest: "ds", text: "Hello **there**" }]);
  });
});
