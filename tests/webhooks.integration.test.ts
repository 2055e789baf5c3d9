import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import { RunDetailSchema, type RunDetail, type Session } from "../lib/protocol/entities";
import { QuestionReadSchema, WebhookPayloadSchema, type QuestionRead } from "../lib/protocol/webhooks";
import { jsonOrText, poll, restClient } from "./helpers/remote";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";
import { suiteServer } from "./helpers/suite-server";

/** An ask's callbackUrl against the production server: a receiver verifies what arrives with standardwebhooks' Webhook.verify. */

const root = path.resolve(import.meta.dirname, "..");

interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** A webhook receiver on loopback answering each request with the next of `statuses` (then the last again). */
async function receiver(statuses: number[]) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body, at: Date.now() });
      res.writeHead(statuses[Math.min(received.length - 1, statuses.length - 1)]!).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/parley-hook?token=r1`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function ask(url: string, body: unknown): Promise<{ status: number; body: Question & { error?: { code: string; message: string } } }> {
  const res = await fetch(`${url}/api/asks`, { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: (await jsonOrText(res)) as Question & { error?: { code: string; message: string } } };
}

const verified = (secret: string, r: Received) => WebhookPayloadSchema.parse(new Webhook(secret).verify(r.body, r.headers));

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const suite = suiteServer("webhooks", { PARLEY_WEBHOOK_SECRET: SECRET, PARLEY_WEBHOOK_HOSTS: "127.0.0.1", PARLEY_WEBHOOK_RETRY_MS: "100" });

describe("an ask's callbackUrl", { timeout: 60_000 }, () => {
  it("is refused at POST with 422 callback_not_allowed, naming PARLEY_WEBHOOK_HOSTS, when its host is not listed; nothing is asked", async () => {
    for (const callbackUrl of ["http://169.254.169.254/latest/meta-data", "http://localhost:9/hook", "https://example.com/hook"]) {
      const refused = await ask(suite.server.url, { question: "Refused?", from: "refused-client", callbackUrl });
      expect(refused.status, callbackUrl).toBe(422);
      expect(refused.body.error?.code).toBe("callback_not_allowed");
      expect(refused.body.error?.message).toContain("PARLEY_WEBHOOK_HOSTS");
    }
    expect((await ask(suite.server.url, { question: "Bad?", from: "refused-client", callbackUrl: "ftp://127.0.0.1/x" })).status).toBe(400);
    // Refused before anything is stored: not even the asker's session was made.
    const sessions = await suite.rest.ok(suite.rest.get<Session[]>("/api/sessions"));
    expect(sessions.filter((s) => s.title === "refused-client")).toEqual([]);
  });

  it("gets the settlement POSTed, signed with PARLEY_WEBHOOK_SECRET; the question's read shows the delivery", async () => {
    const hook = await receiver([200]);
    closers.push(hook.close);
    const asked = await ask(suite.server.url, { question: "Merge it?", options: ["yes", "no"], from: "ci", callbackUrl: hook.url });
    expect(asked.status).toBe(201);
    const before = QuestionReadSchema.parse(await suite.rest.ok(suite.rest.get<QuestionRead>(`/api/questions/${asked.body.id}`)));
    expect(before.deliveries).toEqual([]);
    await suite.rest.ok(suite.rest.post(`/api/questions/${asked.body.id}/reject`, { message: "not today" }));

    await poll("the webhook", () => (hook.received.length > 0 ? true : undefined));
    const [first] = hook.received as [Received];
    expect(first.headers["content-type"]).toBe("application/json");
    expect(verified(SECRET, first)).toMatchObject({ type: "question.settled", data: { question: { id: asked.body.id, status: "declined", feedback: "not today", owner: "ci" } } });
    expect(() => new Webhook("whsec_" + Buffer.from("another secret of 24 bytes!").toString("base64")).verify(first.body, first.headers)).toThrow();

    const read = await poll("the delivery recorded", async () => {
      const q = QuestionReadSchema.parse(await suite.rest.ok(suite.rest.get<QuestionRead>(`/api/questions/${asked.body.id}`)));
      return q.deliveries[0]?.status === "delivered" ? q : undefined;
    });
    expect(read.deliveries).toEqual([expect.objectContaining({ id: first.headers["webhook-id"], host: new URL(hook.url).host, attempts: 1, lastError: null })]);
    // The path and query (which may hold the receiver's own secret) are not shown.
    expect(JSON.stringify(read.deliveries)).not.toContain("token=r1");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received).toHaveLength(1);
  });
});

describe("a delivery across a restart", () => {
  let server: ServerProcess | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("failed once (500), the server killed and started again: it arrives after the restart with the same webhook-id, signed with the secret kept in the database", { timeout: 120_000 }, async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-webhooks-restart-"));
    const databaseFile = path.join(dir, "p.db");
    const port = await freePort();
    // Long enough that the retry cannot come before the kill, short enough to wait for after the restart.
    const env = { PARLEY_WEBHOOK_RETRY_MS: "4000", PARLEY_WEBHOOK_SECRET: undefined, PARLEY_WEBHOOK_HOSTS: undefined };
    server = await startServerProcess({ port, databaseFile, env });
    const hook = await receiver([500, 204]);
    closers.push(hook.close);

    const asked = await ask(server.url, { question: "Release?", options: ["yes", "no"], from: "release-bot", callbackUrl: hook.url });
    expect(asked.status).toBe(201);
    const rest = restClient(server.url);
    await rest.ok(rest.post(`/api/questions/${asked.body.id}/reply`, { value: "yes" }));
    const failed = await poll("the failed attempt recorded", async () => {
      const q = QuestionReadSchema.parse(await rest.ok(rest.get<QuestionRead>(`/api/questions/${asked.body.id}`)));
      return q.deliveries[0]?.attempts === 1 && q.deliveries[0].lastError ? q.deliveries[0] : undefined;
    });
    expect(failed).toMatchObject({ status: "pending", lastError: "HTTP 500" });
    expect(hook.received).toHaveLength(1);

    await server.kill("SIGKILL");
    const restartedAt = Date.now();
    server = await startServerProcess({ port, databaseFile, env });

    await poll("the delivery after the restart", () => (hook.received.length >= 2 ? true : undefined), 30_000);
    const [first, second] = hook.received as [Received, Received];
    expect(second.at).toBeGreaterThan(restartedAt);
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);

    const parley = async (...args: string[]) =>
      (
        await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), ...args, "--database", `file:${databaseFile}`], {
          env: { ...process.env, PARLEY_URL: "", PARLEY_WEBHOOK_SECRET: "" },
        })
      ).stdout;
    // The secret the server made at its first start and kept: the CLI shows it without a server.
    const secret = (await parley("webhook-secret")).trim();
    expect(secret).toMatch(/^whsec_/);
    for (const r of [first, second]) expect(verified(secret, r)).toMatchObject({ data: { question: { id: asked.body.id, status: "answered", answer: "yes" } } });
    expect(first.body).toBe(second.body);

    const delivered = await poll("the delivery recorded", async () => {
      const q = QuestionReadSchema.parse(await rest.ok(rest.get<QuestionRead>(`/api/questions/${asked.body.id}`)));
      return q.deliveries[0]?.status === "delivered" ? q.deliveries[0] : undefined;
    });
    expect(delivered).toMatchObject({ id: first.headers["webhook-id"], questionId: asked.body.id, attempts: 2, lastError: null });
    // The run's audit shows it beside the question.
    const run = RunDetailSchema.parse(await rest.ok(rest.get<RunDetail>(`/api/runs/${asked.body.runId}`)));
    expect(run.questions.map((q) => q.id)).toEqual([asked.body.id]);
    expect(run.deliveries).toEqual([delivered]);
    expect(await parley("inspect", asked.body.runId)).toContain(`webhooks (1):\n  ${delivered.id} to ${new URL(hook.url).host}: delivered after 2 attempt(s)`);
  });
});
