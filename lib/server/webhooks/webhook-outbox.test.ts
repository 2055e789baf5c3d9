import { createQuestionSurfaces } from "../surfaces/question-surfaces";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../tests/helpers/fixture-db";
import { poll } from "../../../tests/helpers/remote";
import { WebhookPayloadSchema } from "../../protocol/webhooks";
import { createDomainServices, type DomainServices } from "../domain-services";
import type { Db } from "../store/db/client";
import { DomainEvents } from "../events";
import { newWebhookSecret } from "./secret-format";
import { createWebhookStore } from "../store/webhooks/webhook-store";
import { createWebhookOutbox, type WebhookOptions, type WebhookOutbox } from "./webhook-outbox";

// The outbox on whichever engine the suite runs (SQLite, or PostgreSQL under `npm run test:pg`), against a real receiver.

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver answering each request with the next of `statuses` (the last one again after that). */
async function receiver(statuses: number[], extra: (res: import("node:http").ServerResponse) => void = () => {}) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      extra(res);
      res.writeHead(statuses[Math.min(received.length - 1, statuses.length - 1)]!).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?key=abc`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let t: StoreTestDb;
let db: Db;
let fixture: FixtureDb;
let domain: DomainServices;
const secret = newWebhookSecret();
const cleanups: Array<() => Promise<void> | void> = [];

beforeEach(async () => {
  t = await openStoreTestDb("parley_webhooks");
  ({ db, fixture } = t);
  domain = createDomainServices({ db, events: new DomainEvents() });
  await fixture.chatSession.create({ data: { id: "s", title: "t" } });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await t.close();
});

function outbox(options: WebhookOptions = {}): WebhookOutbox {
  const o = createWebhookOutbox({ db, questions: domain.questions }, { secret, retryMs: 50, pollMs: 50, ...options });
  cleanups.push(() => o.stop());
  // As createParley does: the registry tells it what the domain events say.
  const surfaces = createQuestionSurfaces(domain.events);
  surfaces.attach("webhooks", o.surface);
  cleanups.push(surfaces.close);
  return o;
}

/** A settled question of an `ask` run given `input` (or another function's run). */
async function settledAsk(id: string, input: Record<string, unknown>, { functionName = "ask", status = "answered" } = {}) {
  await fixture.run.create({ data: { id: `r-${id}`, sessionId: "s", functionName, input: JSON.stringify({ question: "Ship it?", from: "ci", ...input }), status: "succeeded" } });
  await fixture.question.create({
    data: {
      id,
      sessionId: "s",
      runId: `r-${id}`,
      kind: "question",
      prompt: "Ship it?",
      owner: "ci",
      pendingId: `p-${id}`,
      targetDigest: "d",
      status,
      answer: status === "answered" ? JSON.stringify("yes") : null,
      closedBy: status === "pending" ? null : "rest",
      closedAt: status === "pending" ? null : new Date(),
    },
  });
  return domain.questions.getQuestion({ id });
}

const rows = () => fixture.webhookDelivery.findMany({ orderBy: { createdAt: "asc" } });

describe("the webhook outbox", () => {
  it("POSTs a settled ask's question to its callbackUrl, signed as Standard Webhooks specify, once; other questions get nothing", async () => {
    const hook = await receiver([204]);
    cleanups.push(hook.close);
    const o = outbox();
    o.start();
    const question = await settledAsk("q1", { callbackUrl: hook.url });
    await o.enqueue(question);
    await o.enqueue(question);
    await o.enqueue(await settledAsk("q2", {}));
    await o.enqueue(await settledAsk("q3", { callbackUrl: hook.url }, { functionName: "chat" }));
    await o.enqueue(await settledAsk("q4", { callbackUrl: hook.url }, { status: "pending" }));

    await poll("the delivery", async () => ((await o.deliveriesOf("q1"))[0]?.status === "delivered" ? true : undefined));
    expect(hook.received).toHaveLength(1);
    const [{ headers, body }] = hook.received as [Received];
    expect(headers["content-type"]).toBe("application/json");
    const verified = WebhookPayloadSchema.parse(new Webhook(secret).verify(body, headers as Record<string, string>));
    expect(verified).toMatchObject({ type: "question.settled", timestamp: question.closedAt, data: { question: { id: "q1", status: "answered", answer: "yes" } } });
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers as Record<string, string>)).toThrow();

    const [delivery] = await o.deliveriesOf("q1");
    expect(delivery).toMatchObject({ id: headers["webhook-id"], questionId: "q1", host: new URL(hook.url).host, status: "delivered", attempts: 1, lastError: null, nextAttemptAt: null });
    expect((await rows()).map((r) => r.questionId)).toEqual(["q1"]);
    // The run's audit lists it too; another run's lists nothing of it.
    expect(await createWebhookStore(db.exec).ofRun("r-q1")).toEqual([delivery]);
    expect(await createWebhookStore(db.exec).ofRun("r-q2")).toEqual([]);
  });

  it("retries a failed attempt with backoff under the same webhook-id, and shows why it failed meanwhile", async () => {
    const hook = await receiver([500, 503, 200]);
    cleanups.push(hook.close);
    const o = outbox({ retryMs: 200 });
    o.start();
    await o.enqueue(await settledAsk("q1", { callbackUrl: hook.url }));
    const failedOnce = await poll("the first failure recorded", async () => {
      const [d] = await o.deliveriesOf("q1");
      return d?.attempts === 1 && d.lastError ? d : undefined;
    });
    expect(failedOnce).toMatchObject({ status: "pending", lastError: "HTTP 500" });
    expect(failedOnce.nextAttemptAt).not.toBeNull();
    await poll("the delivery", async () => ((await o.deliveriesOf("q1"))[0]?.status === "delivered" ? true : undefined));
    expect(hook.received).toHaveLength(3);
    expect(new Set(hook.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    const [row] = await rows();
    expect(row).toMatchObject({ attempts: 3, status: "delivered", lastError: null });
  });

  it("gives up once the next attempt would fall past the window: failed, with the last error", async () => {
    const hook = await receiver([500]);
    cleanups.push(hook.close);
    const o = outbox({ retryMs: 60_000, windowMs: 1_000 });
    o.start();
    await o.enqueue(await settledAsk("q1", { callbackUrl: hook.url }));
    const [failed] = await poll("given up", async () => {
      const d = await o.deliveriesOf("q1");
      return d[0]?.status === "failed" ? d : undefined;
    });
    expect(failed).toMatchObject({ status: "failed", attempts: 1, lastError: "HTTP 500", nextAttemptAt: null, deliveredAt: null });
  });

  it("follows no redirect, and posts to no host PARLEY_WEBHOOK_HOSTS stopped allowing", async () => {
    const target = await receiver([200]);
    const redirecting = await receiver([302], (res) => res.setHeader("location", target.url));
    cleanups.push(target.close, redirecting.close);
    const o = outbox({ retryMs: 60_000, hosts: ["127.0.0.1", "localhost"] });
    o.start();
    await o.enqueue(await settledAsk("q1", { callbackUrl: redirecting.url }));
    await o.enqueue(await settledAsk("q2", { callbackUrl: target.url.replace("127.0.0.1", "[::1]") }));
    await poll("both attempts", async () => ((await rows()).every((r) => r.attempts === 1 && r.lastError) ? true : undefined));
    expect((await o.deliveriesOf("q1"))[0]!.lastError).toBe("HTTP 302: redirects are not followed");
    expect((await o.deliveriesOf("q2"))[0]!.lastError).toContain("PARLEY_WEBHOOK_HOSTS");
    expect(redirecting.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it("the sweep enqueues settled asks with a callback that have no delivery (a crash between settling and enqueueing)", async () => {
    const hook = await receiver([200]);
    cleanups.push(hook.close);
    await settledAsk("q1", { callbackUrl: hook.url });
    await settledAsk("q2", { callbackUrl: hook.url }, { status: "pending" });
    await settledAsk("q3", { question: 'mentions "callbackUrl": in its text' });
    const o = outbox();
    expect(await o.sweep()).toBe(1);
    expect(await o.sweep()).toBe(0);
    o.start();
    await poll("the delivery", async () => ((await o.deliveriesOf("q1"))[0]?.status === "delivered" ? true : undefined));
    expect((await rows()).map((r) => r.questionId)).toEqual(["q1"]);
  });

  it("two senders on one database (two nodes) make one attempt at a time: the receiver gets the delivery once", async () => {
    const hook = await receiver([200]);
    cleanups.push(hook.close);
    const nodes = [outbox({ pollMs: 10 }), outbox({ pollMs: 10 })];
    const questions = await Promise.all(Array.from({ length: 12 }, (_, i) => settledAsk(`q${i}`, { callbackUrl: hook.url })));
    for (const q of questions) await nodes[0]!.enqueue(q);
    for (const node of nodes) node.start();
    await poll("every delivery", async () => ((await rows()).every((r) => r.status === "delivered") ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hook.received).toHaveLength(12);
    expect(new Set(hook.received.map((r) => r.headers["webhook-id"])).size).toBe(12);
    expect((await rows()).every((r) => r.attempts === 1)).toBe(true);
  });
});
