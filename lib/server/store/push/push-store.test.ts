import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../../tests/helpers/fixture-db";
import type { Db } from "../db/client";
import { createPushStore, type PushStore } from "./push-store";

// The push store's statements on whichever engine the suite runs (SQLite, or PostgreSQL under `npm run test:pg`).
let t: StoreTestDb;
let db: Db;
let fixture: FixtureDb;
let store: PushStore;

const device = (n: number, ownerId = "local") => ({ id: `sub${n}`, ownerId, endpoint: `https://push.example/${n}`, p256dh: `key${n}`, auth: `auth${n}`, device: `Phone ${n}` });
const DAY = 86_400_000;

beforeEach(async () => {
  t = await openStoreTestDb("parley_pushstore");
  ({ db, fixture } = t);
  store = createPushStore(db.exec);
  await fixture.chatSession.create({ data: { id: "s1", title: "t" } });
  await fixture.chatSession.create({ data: { id: "s2", title: "u" } });
  // The questions the pushes are of, waiting (a settled one gets no push).
  await fixture.run.create({ data: { id: "r1", sessionId: "s1", functionName: "f", input: "{}", status: "waiting_input" } });
  for (const id of ["q1", "q2"]) await question(id, "pending");
});

const question = (id: string, status: string) =>
  fixture.question.create({ data: { id, sessionId: "s1", runId: "r1", kind: "confirm", prompt: "?", owner: "f", pendingId: `p-${id}`, targetDigest: "d", status } });

afterEach(() => t.close());

const rows = async (questionId = "q1") => (await store.of(questionId)).map((r) => `${r.subscriptionId}:${r.kind}:${r.status}`).sort();
const enqueueQ1 = (sessionId = "s1") => store.enqueueQuestion({ questionId: "q1", sessionId, ownerId: "local", payload: '{"type":"question"}', windowMs: DAY });
const closeQ1 = () => store.enqueueClosed({ questionId: "q1", payload: '{"type":"closed"}', windowMs: DAY });

describe("push subscriptions", () => {
  it("the same endpoint again keeps its id and takes the new keys, name and owner; a list shows the owner's own, newest first", async () => {
    expect(await store.subscribe(device(1))).toBe("sub1");
    expect(await store.subscribe(device(2))).toBe("sub2");
    expect(await store.subscribe({ ...device(1), id: "other", p256dh: "new", device: "Renamed" })).toBe("sub1");
    expect((await store.devices("local")).map((d) => [d.id, d.device, d.service])).toEqual([
      ["sub2", "Phone 2", "push.example"],
      ["sub1", "Renamed", "push.example"],
    ]);
    expect((await fixture.pushSubscription.findUnique({ where: { id: "sub1" } }))!.p256dh).toBe("new");

    await enqueueQ1();
    // Another person posting the same endpoint changes nothing: it stays its owner's, with its keys and deliveries.
    expect(await store.subscribe({ ...device(1), ownerId: "ann", p256dh: "ann's" })).toBeNull();
    expect(await store.devices("ann")).toEqual([]);
    expect((await store.devices("local")).map((d) => d.id)).toEqual(["sub2", "sub1"]);
    expect((await fixture.pushSubscription.findUnique({ where: { id: "sub1" } }))!).toMatchObject({ ownerId: "local", p256dh: "new" });
    expect((await rows()).sort()).toEqual(["sub1:question:pending", "sub2:question:pending"]);
  });

  it("removing is the owner's only; a dropped subscription takes its deliveries with it", async () => {
    await store.subscribe(device(1));
    await store.subscribe(device(2));
    expect(await store.remove("sub1", "ann")).toBe(false);
    expect(await store.remove("sub1", "local")).toBe(true);
    expect(await store.remove("sub1", "local")).toBe(false);
    await enqueueQ1();
    await store.drop("sub2");
    expect(await rows()).toEqual([]);
  });
});

describe("who a question is pushed to", () => {
  beforeEach(async () => {
    await store.subscribe(device(1));
    await store.subscribe(device(2));
    await store.subscribe(device(3, "ann"));
  });

  it("each device of the owner, once", async () => {
    expect(await enqueueQ1()).toBe(2);
    expect(await enqueueQ1()).toBe(0);
    expect(await rows()).toEqual(["sub1:question:pending", "sub2:question:pending"]);
  });

  it("none for a muted session (its own mute only), and again after unmuting", async () => {
    await store.setMuted("local", "s1", true);
    await store.setMuted("local", "s1", true);
    await store.setMuted("ann", "s2", true);
    expect(await store.mutedSessions("local")).toEqual(["s1"]);
    expect(await enqueueQ1()).toBe(0);
    expect(await enqueueQ1("s2")).toBe(2);
    await store.setMuted("local", "s1", false);
    expect(await store.mutedSessions("local")).toEqual([]);
  });

  it("a session's delete takes its mutes", async () => {
    await store.setMuted("local", "s1", true);
    await fixture.chatSession.delete({ where: { id: "s1" } });
    expect(await store.mutedSessions("local")).toEqual([]);
  });

  it("not to a device whose tab shows the session, until its presence lapses or is cleared; presence is the owner's to set", async () => {
    expect(await store.present({ id: "sub1", ownerId: "ann", sessionId: "s1", ttlMs: 60_000 })).toBe(false);
    expect(await store.present({ id: "sub1", ownerId: "local", sessionId: "s1", ttlMs: 60_000 })).toBe(true);
    expect(await enqueueQ1()).toBe(1);
    expect(await rows()).toEqual(["sub2:question:pending"]);
    // Another session's question reaches it.
    expect(await store.enqueueQuestion({ questionId: "q2", sessionId: "s2", ownerId: "local", payload: "{}", windowMs: DAY })).toBe(2);

    await store.present({ id: "sub1", ownerId: "local", sessionId: "s1", ttlMs: -1 });
    expect(await enqueueQ1()).toBe(1);

    await fixture.pushDelivery.deleteMany();
    await store.present({ id: "sub1", ownerId: "local", sessionId: "s1", ttlMs: 60_000 });
    await store.absent("sub1", "s2");
    expect(await enqueueQ1()).toBe(1);
    await store.absent("sub1", "s1");
    expect(await enqueueQ1()).toBe(1);
    expect(await rows()).toEqual(["sub1:question:pending", "sub2:question:pending"]);

    // A tab that shows nothing now leaves what another tab of that browser set since it (the tab switched to) as it is.
    await store.present({ id: "sub2", ownerId: "local", sessionId: "s2", ttlMs: 60_000 });
    expect(await store.present({ id: "sub2", ownerId: "local", sessionId: null, ttlMs: 60_000 })).toBe(true);
    expect(await store.present({ id: "sub2", ownerId: "ann", sessionId: null, ttlMs: 60_000 })).toBe(false);
    const sub2 = (await fixture.pushSubscription.findUnique({ where: { id: "sub2" } }))!;
    expect(sub2.presentSessionId).toBe("s2");
  });
});

describe("the push outbox's rows", () => {
  beforeEach(async () => {
    await store.subscribe(device(1));
    await store.subscribe(device(2));
    await enqueueQ1();
  });

  it("a settled question cancels what was not sent and retracts what was sent or tried", async () => {
    const [a] = (await store.due(10)).sort((x, y) => x.subscriptionId.localeCompare(y.subscriptionId));
    expect(a).toMatchObject({ kind: "question", questionId: "q1", endpoint: "https://push.example/1", p256dh: "key1", auth: "auth1", attempts: 0 });
    expect(await store.claim(a!, 60_000)).toBe(true);
    expect(await store.claim(a!, 60_000)).toBe(false);
    await store.delivered(a!, 1);
    expect((await store.devices("local")).find((d) => d.id === "sub1")!.lastPushAt).not.toBeNull();

    expect(await closeQ1()).toBe(1);
    expect(await closeQ1()).toBe(0);
    expect(await rows()).toEqual(["sub1:closed:pending", "sub1:question:delivered", "sub2:question:cancelled"]);
    expect((await store.due(10)).map((d) => [d.subscriptionId, d.kind, d.payload])).toEqual([["sub1", "closed", '{"type":"closed"}']]);
  });

  it("an attempt tried and failed may have arrived: it is retracted too", async () => {
    const [a] = await store.due(1);
    await store.claim(a!, 60_000);
    await store.failed(a!.id, 1, "HTTP 503", 60_000);
    expect(await store.due(10)).toHaveLength(1);
    await closeQ1();
    expect((await rows()).filter((r) => r.includes("closed"))).toEqual([`${a!.subscriptionId}:closed:pending`]);
  });

  it("a failure is retried after the delay, unless final or past the window", async () => {
    const [a, b] = await store.due(10);
    await store.claim(a!, 0);
    await store.failed(a!.id, 1, "HTTP 503", -1);
    expect((await store.due(10)).find((d) => d.id === a!.id)).toMatchObject({ attempts: 1 });
    await store.claim(b!, 0);
    await store.failed(b!.id, 1, "HTTP 400", -1, true);
    await store.claim({ ...a!, attempts: 1 }, 0);
    await store.failed(a!.id, 2, "HTTP 503", 2 * DAY);
    expect((await store.of("q1")).map((r) => [r.status, r.lastError])).toEqual([
      ["failed", "HTTP 503"],
      ["failed", "HTTP 400"],
    ]);
  });

  it("the sweep finds a pending question with no push, and a settled one not retracted", async () => {
    await fixture.question.update({ where: { id: "q1" }, data: { status: "answered" } });
    await question("q3", "answered");
    expect(await store.askedWithoutPush(DAY, 10)).toEqual(["q2"]);
    expect(await store.settledWithoutRetraction(10)).toEqual(["q1"]);
    await closeQ1();
    expect(await store.settledWithoutRetraction(10)).toEqual([]);
  });
});
