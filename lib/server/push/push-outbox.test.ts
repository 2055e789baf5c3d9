import { createQuestionSurfaces } from "../surfaces/question-surfaces";
import webpush from "web-push";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../tests/helpers/fixture-db";
import { poll } from "../../../tests/helpers/remote";
import { PushPayloadSchema } from "../../protocol/push";
import { createDomainServices, type DomainServices } from "../domain-services";
import { DomainEvents } from "../events";
import type { Db } from "../store/db/client";
import { createPushStore } from "../store/push/push-store";
import { createPushOutbox, type PushOptions, type PushOutbox, type PushSender } from "./push-outbox";
import type { PushOutcome } from "./push-post";
import { pushTopic } from "./push-payload";

// The push outbox on whichever engine the suite runs, with a push service of the test's own (the sender): what it is sent, and what it answers.
let t: StoreTestDb;
let db: Db;
let fixture: FixtureDb;
let domain: DomainServices;
const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:test@example.com" };
const cleanups: Array<() => Promise<void> | void> = [];

interface Sent {
  endpoint: string;
  payload: unknown;
  topic: string;
}

/** A push service answering each push to an endpoint with the next of its outcomes (the last again after that); ok by default. */
function pushService(answers: Record<string, PushOutcome[]> = {}) {
  const sent: Sent[] = [];
  const counts = new Map<string, number>();
  const send: PushSender = async (target, payload, { topic }) => {
    sent.push({ endpoint: target.endpoint, payload: PushPayloadSchema.parse(JSON.parse(payload)), topic });
    const n = counts.get(target.endpoint) ?? 0;
    counts.set(target.endpoint, n + 1);
    const list = answers[target.endpoint] ?? [{ ok: true }];
    return list[Math.min(n, list.length - 1)]!;
  };
  return { sent, send };
}

beforeEach(async () => {
  t = await openStoreTestDb("parley_pushoutbox");
  ({ db, fixture } = t);
  domain = createDomainServices({ db, events: new DomainEvents() });
  await fixture.chatSession.create({ data: { id: "s", title: "Release" } });
  await fixture.run.create({ data: { id: "r", sessionId: "s", functionName: "deploy", input: "{}", status: "waiting_input" } });
  const store = createPushStore(db.exec);
  for (const n of [1, 2]) await store.subscribe({ id: `sub${n}`, ownerId: "local", endpoint: `https://fcm.googleapis.com/fcm/send/${n}`, p256dh: "k", auth: "a", device: `Phone ${n}` });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await t.close();
});

function outbox(send: PushSender, options: PushOptions = {}): PushOutbox {
  const o = createPushOutbox({ db, questions: domain.questions }, { vapid, send, retryMs: 50, pollMs: 50, ...options });
  cleanups.push(() => o.stop());
  // As createParley does: the registry tells it what the domain events say.
  const surfaces = createQuestionSurfaces(domain.events);
  surfaces.attach("push", o.surface);
  cleanups.push(surfaces.close);
  return o;
}

async function ask(id: string, over: { kind?: string; status?: string } = {}) {
  await fixture.question.create({
    data: { id, sessionId: "s", runId: "r", kind: over.kind ?? "confirm", prompt: "Ship it?", owner: "deploy", pendingId: `p-${id}`, targetDigest: `d-${id}`, status: over.status ?? "pending" },
  });
  return domain.questions.getQuestion({ id });
}

async function settle(id: string) {
  await fixture.question.update({ where: { id }, data: { status: "answered", answer: "true", closedBy: "push", closedAt: new Date() } });
  return domain.questions.getQuestion({ id });
}

const deliveries = async (questionId: string) => (await createPushStore(db.exec).of(questionId)).map((r) => `${r.subscriptionId}:${r.kind}:${r.status}`).sort();
const endpoint = (n: number) => `https://fcm.googleapis.com/fcm/send/${n}`;

describe("the push outbox", () => {
  it("pushes a new question to every device once, with its topic; its settlement retracts it on each", async () => {
    const service = pushService();
    const o = outbox(service.send);
    o.start();
    const q = await ask("q1");
    domain.events.emit("question.asked", q);
    domain.events.emit("question.asked", q);
    await poll("both pushes", async () => ((await deliveries("q1")).join() === "sub1:question:delivered,sub2:question:delivered" ? true : undefined));
    expect(service.sent.map((s) => s.endpoint).sort()).toEqual([endpoint(1), endpoint(2)]);
    expect(service.sent[0]).toMatchObject({ topic: pushTopic("q1"), payload: { type: "question", questionId: "q1", title: "Deploy asks", body: "Ship it?\n— Release", tag: "q1", digest: "d-q1" } });

    domain.events.emit("question.closed", await settle("q1"));
    await poll("both retractions", async () => ((await deliveries("q1")).length === 4 && (await deliveries("q1")).every((d) => d.endsWith("delivered")) ? true : undefined));
    expect(
      service.sent
        .slice(2)
        .map((s) => [s.endpoint, s.payload, s.topic])
        .sort(),
    ).toEqual([1, 2].map((n) => [endpoint(n), { type: "closed", questionId: "q1", tag: "q1" }, pushTopic("q1")]));
    const devices = await fixture.pushSubscription.findMany();
    expect(devices.every((d) => d.lastPushAt !== null)).toBe(true);
  });

  it("a question settled before its push went out is never pushed, nor retracted", async () => {
    const service = pushService();
    const o = outbox(service.send);
    await o.enqueueQuestion(await ask("q1"));
    await o.enqueueClosed((await settle("q1")).id);
    expect(await deliveries("q1")).toEqual(["sub1:question:cancelled", "sub2:question:cancelled"]);
    o.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(service.sent).toEqual([]);
  });

  it("a question whose settlement another node retracted before this node enqueued its pushes is never pushed", async () => {
    const service = pushService();
    const here = outbox(service.send);
    const elsewhere = outbox(pushService().send);
    const asked = await ask("q1");
    // The other node heard the settlement first: nothing of this question to retract or cancel yet.
    await settle("q1");
    await elsewhere.enqueueClosed("q1");
    // This node's question.asked, late, with the question as it was asked.
    await here.enqueueQuestion(asked);
    here.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(service.sent).toEqual([]);
    expect(await deliveries("q1")).toEqual([]);
  });

  it("a push service answering 404 or 410 drops the subscription and what it had pending", async () => {
    const service = pushService({ [endpoint(1)]: [{ ok: false, gone: true, error: "HTTP 410" }], [endpoint(2)]: [{ ok: false, gone: true, error: "HTTP 404" }] });
    const o = outbox(service.send);
    o.start();
    domain.events.emit("question.asked", await ask("q1"));
    await poll("both dropped", async () => ((await fixture.pushSubscription.count()) === 0 ? true : undefined));
    expect(await deliveries("q1")).toEqual([]);
  });

  it("retries a busy push service with backoff; a push it refused for good is not retried", async () => {
    const service = pushService({
      [endpoint(1)]: [{ ok: false, gone: false, retry: true, error: "HTTP 503" }, { ok: false, gone: false, retry: true, error: "HTTP 429" }, { ok: true }],
      [endpoint(2)]: [{ ok: false, gone: false, retry: false, error: "HTTP 413" }],
    });
    const o = outbox(service.send, { retryMs: 100 });
    o.start();
    domain.events.emit("question.asked", await ask("q1"));
    await poll("delivered after two failures", async () => ((await deliveries("q1")).join() === "sub1:question:delivered,sub2:question:failed" ? true : undefined));
    const rows = await fixture.pushDelivery.findMany({ orderBy: { subscriptionId: "asc" } });
    expect(rows.map((r) => [r.attempts, r.lastError])).toEqual([
      [3, null],
      [1, "HTTP 413"],
    ]);
    expect(service.sent.filter((s) => s.endpoint === endpoint(2))).toHaveLength(1);
    // The subscription stays: only 404 and 410 say it is gone.
    expect(await fixture.pushSubscription.count()).toBe(2);
  });

  it("posts nowhere PARLEY_PUSH_HOSTS stopped allowing", async () => {
    await createPushStore(db.exec).subscribe({ id: "sub3", ownerId: "local", endpoint: "https://127.0.0.1:9/push/3", p256dh: "k", auth: "a", device: "Test" });
    const service = pushService();
    const o = outbox(service.send, { hosts: [] });
    o.start();
    domain.events.emit("question.asked", await ask("q1"));
    await poll("every attempt", async () => ((await deliveries("q1")).filter((d) => !d.endsWith("pending")).length === 3 ? true : undefined));
    expect((await fixture.pushDelivery.findFirst({ where: { subscriptionId: "sub3" } }))!).toMatchObject({ status: "failed", lastError: "its host is no longer allowed by PARLEY_PUSH_HOSTS" });
    expect(service.sent.map((s) => s.endpoint)).not.toContain("https://127.0.0.1:9/push/3");
  });

  it("the sweep enqueues what a crash left out: a waiting question with no push, a settled one not retracted", async () => {
    const service = pushService();
    const first = outbox(service.send);
    first.start();
    domain.events.emit("question.asked", await ask("q1"));
    await poll("q1 pushed", async () => ((await deliveries("q1")).join() === "sub1:question:delivered,sub2:question:delivered" ? true : undefined));
    await first.stop();
    // While no outbox listened: q1 settled, q2 was asked.
    await settle("q1");
    await ask("q2");
    const second = outbox(service.send);
    expect(await second.sweep()).toBe(2);
    expect(await second.sweep()).toBe(0);
    second.start();
    await poll("q1 retracted and q2 pushed", async () =>
      (await deliveries("q1")).length === 4 && (await deliveries("q2")).length === 2 && [...(await deliveries("q1")), ...(await deliveries("q2"))].every((d) => d.endsWith("delivered"))
        ? true
        : undefined,
    );
  });

  it("two senders on one database (two nodes) send each push once", async () => {
    const service = pushService();
    const nodes = [outbox(service.send, { pollMs: 10 }), outbox(service.send, { pollMs: 10 })];
    for (let i = 0; i < 8; i++) await nodes[0]!.enqueueQuestion(await ask(`q${i}`));
    for (const node of nodes) node.start();
    await poll("every push", async () => ((await fixture.pushDelivery.findMany()).every((r) => r.status === "delivered") ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(service.sent).toHaveLength(16);
    expect((await fixture.pushDelivery.findMany()).every((r) => r.attempts === 1)).toBe(true);
  });
});
