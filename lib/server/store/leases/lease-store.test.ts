import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../../tests/helpers/fixture-db";
import { createLeaseStore, type LeaseStore } from "./lease-store";
import { holdEpoch, RunLeaseLost } from "../../cluster/lease-fence";

// The lease store's statements on whichever engine the suite runs (SQLite, or PostgreSQL under
// `npm run test:pg`).
let t: StoreTestDb;
let db: Db;
let fixture: FixtureDb;
let store: LeaseStore;

beforeEach(async () => {
  t = await openStoreTestDb("parley_leasestore");
  ({ db, fixture } = t);
  store = createLeaseStore(db.exec);
  await fixture.chatSession.create({ data: { id: "s", title: "t" } });
});

afterEach(() => t.close());

const HOUR = 3_600_000;
const addRun = (id: string, status = "running", updatedAt = new Date()) => fixture.run.create({ data: { id, sessionId: "s", functionName: "f", input: "{}", status, updatedAt } });
const leaseOf = async (id: string) => (await fixture.run.findUnique({ where: { id }, select: { leaseOwner: true, leaseUntil: true, leaseEpoch: true, updatedAt: true } }))!;

describe("a run's lease", () => {
  it("is taken while nobody else holds a live one, raising the epoch, and fences writes by it", async () => {
    await addRun("r");
    expect(await store.take("r", "a", 60_000)).toBe(1);
    expect(await store.take("r", "a", 60_000)).toBe(2);
    expect(await store.take("r", "b", 60_000)).toBeNull();
    expect(await store.holder("r")).toEqual({ owner: "a", live: true });
    expect(await store.holder("missing")).toBeUndefined();
    const { exec } = db;
    await expect(exec.transaction((tx) => holdEpoch(tx, "r", 2))).resolves.toBeUndefined();
    await expect(exec.transaction((tx) => holdEpoch(tx, "r", 1))).rejects.toBeInstanceOf(RunLeaseLost);
    // Lapsed: another node takes it.
    expect(await store.extend(["r"], "a", -1)).toBe(1);
    expect(await store.holder("r")).toEqual({ owner: "a", live: false });
    expect(await store.take("r", "b", 60_000)).toBe(3);
    expect(await store.extend(["r"], "a", 60_000)).toBe(0);
  });

  it("is held from the insert of a new run, inside its transaction", async () => {
    await addRun("r");
    await db.exec.transaction((tx) => store.holdNew(tx, "r", "a", 60_000, 1));
    const lease = await leaseOf("r");
    expect(lease).toMatchObject({ leaseOwner: "a", leaseEpoch: 1 });
    expect(lease.leaseUntil!.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it("is let go only by its holder at its epoch (any epoch when null), which dates the run's change", async () => {
    await addRun("r", "running", new Date(Date.now() - HOUR));
    await store.take("r", "a", 60_000);
    await store.release("r", "b", null, new Date());
    await store.release("r", "a", 7, new Date());
    expect(await leaseOf("r")).toMatchObject({ leaseOwner: "a", leaseEpoch: 1 });
    const at = new Date("2026-12-03T10:00:00.123Z");
    await store.release("r", "a", 1, at);
    expect(await leaseOf("r")).toEqual({ leaseOwner: null, leaseUntil: null, leaseEpoch: 1, updatedAt: at });
    await store.take("r", "a", 60_000);
    await store.release("r", "a", null, at);
    expect(await leaseOf("r")).toMatchObject({ leaseOwner: null, leaseEpoch: 2 });
  });

  it("is renewed for any number of runs in one statement, and tells which its node still holds", async () => {
    const ids = Array.from({ length: 1_200 }, (_, i) => `r${i}`);
    await fixture.run.createMany({ data: ids.map((id) => ({ id, sessionId: "s", functionName: "f", input: "{}", status: "running", leaseOwner: "a", leaseUntil: new Date() })) });
    await fixture.run.update({ where: { id: "r7" }, data: { leaseOwner: "b" } });
    expect(await store.extend(ids, "a", 60_000)).toBe(1_199);
    expect((await store.holding(ids, "a")).sort()).toEqual(ids.filter((id) => id !== "r7").sort());
    expect(await store.holding(["r7", "missing"], "a")).toEqual([]);
  });

  it("of an active run is an orphan once lapsed, or once nobody leased it for a lease's length (unless it waits on a pending question)", async () => {
    const old = new Date(Date.now() - HOUR);
    await addRun("lapsed", "running", old);
    await store.take("lapsed", "a", -1);
    await addRun("live");
    await store.take("live", "a", 60_000);
    await addRun("unleased", "running", new Date(Date.now() - 2 * HOUR));
    await addRun("fresh");
    await addRun("parked", "waiting_input", old);
    await addRun("answered", "waiting_input", new Date(old.getTime() + 1_000));
    await addRun("ended", "succeeded", old);
    await fixture.question.create({ data: { id: "q", sessionId: "s", runId: "parked", kind: "question", prompt: "?", owner: "f", pendingId: "p", targetDigest: "d", status: "pending" } });
    expect(await store.orphans(60_000, 10)).toEqual([
      { id: "unleased", lapsed: false },
      { id: "lapsed", lapsed: true },
      { id: "answered", lapsed: false },
    ]);
    expect(await store.orphans(60_000, 1)).toEqual([{ id: "unleased", lapsed: false }]);
  });
});

describe("a job's lease", () => {
  it("is made, renewed by its holder, taken by another only once lapsed, and let lapse", async () => {
    expect(await store.claimJob("job", "a", 60_000)).toBe(true);
    expect(await store.claimJob("job", "a", 60_000)).toBe(true);
    expect(await store.claimJob("job", "b", 60_000)).toBe(false);
    expect(await store.extendJob("job", "b", -1)).toBe(0);
    expect(await store.extendJob("job", "a", -1)).toBe(1);
    expect(await store.claimJob("job", "b", 60_000)).toBe(true);
    expect(await fixture.nodeLease.findUnique({ where: { name: "job" } })).toMatchObject({ holder: "b", epoch: 2 });
  });
});
