import { afterEach, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import { startTestApp, waitFor, type TestApp } from "./helpers/test-app";

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function askOne(a: TestApp, input: unknown = { prompt: "Which region?", options: ["eu", "us"] }) {
  const session = await a.parley.sessions.createSession();
  const run = await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input });
  const question = await waitFor(async () => (await a.parley.questions.listPending({ runIds: [run.id] }))[0]);
  return { session, run, question };
}

function closedEvents(a: TestApp, questionId: string): Question[] {
  const seen: Question[] = [];
  a.parley.events.on("question.closed", (q) => q.id === questionId && seen.push(q));
  return seen;
}

describe("idempotent commands under concurrency", () => {
  it("twenty concurrent replies with one commandId answer once and all get the winner's receipt", async () => {
    app = await startTestApp();
    const { question } = await askOne(app);
    const closed = closedEvents(app, question.id);
    const receipts = await Promise.all(Array.from({ length: 20 }, () => app!.parley.questions.reply({ id: question.id, value: "eu", commandId: "twin-reply", by: "rest" })));
    expect(receipts[0]).toMatchObject({ commandId: "twin-reply", apply_state: "applied", outcome: "answered" });
    for (const r of receipts) expect(r).toEqual(receipts[0]);
    expect(await app.parley.commands.getReceipt({ commandId: "twin-reply" })).toEqual(receipts[0]);
    expect(closed).toHaveLength(1);
  });

  it("twenty concurrent start_run twins with one commandId start one run and get one receipt", async () => {
    app = await startTestApp();
    const session = await app.parley.sessions.createSession();
    const started = await Promise.all(
      Array.from({ length: 20 }, () => app!.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Once?" }, commandId: "twin-start" })),
    );
    const runs = await app.parley.runs.listRuns({ sessionId: session.id });
    expect(runs).toHaveLength(1);
    for (const s of started) expect(s.receipt).toEqual(started[0]!.receipt);
    expect(started[0]!.receipt).toMatchObject({ apply_state: "applied", runId: runs[0]!.id });
  });

  it("the same commandId with another payload is refused with command_conflict", async () => {
    app = await startTestApp();
    const { question } = await askOne(app);
    await app.parley.questions.reply({ id: question.id, value: "eu", commandId: "c-1", by: "rest" });
    await expect(app.parley.questions.reply({ id: question.id, value: "us", commandId: "c-1", by: "rest" })).rejects.toMatchObject({ code: "command_conflict" });
  });
});

describe("the inbox of queued CLI commands", () => {
  async function enqueueReply(a: TestApp, question: Question, commandId: string, value: unknown) {
    await a.parley.commands.enqueue({ commandId, kind: "send_input", payload: { questionId: question.id, digest: null, value } }, {
      commandId,
      kind: "send_input",
      record_state: "durably_recorded",
      apply_state: "queued",
      outcome: "queued",
      question,
    } as never);
  }

  it("a transient error leaves a queued command queued, and a later poll applies it", async () => {
    app = await startTestApp();
    const { run, question } = await askOne(app);
    const questions = app.parley.questions;
    const realReply = questions.reply;
    let calls = 0;
    questions.reply = (args) => {
      calls++;
      if (calls === 1) return Promise.reject(Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }));
      return realReply(args);
    };
    await enqueueReply(app, question, "queued-1", "us");
    const a = app;
    const receipt = await waitFor(async () => {
      const r = await a.parley.commands.getReceipt({ commandId: "queued-1" });
      return r && r.apply_state !== "queued" && r;
    });
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(receipt).toMatchObject({ apply_state: "applied", outcome: "answered" });
    const done = await waitFor(async () => {
      const r = await a.parley.runs.getRun({ id: run.id });
      return r.status === "succeeded" && r;
    });
    expect(done.result).toEqual({ outcome: "answered", value: "us" });
  });

  it("a permanent error (an answer the question does not accept) rejects a queued command for good", async () => {
    app = await startTestApp();
    const { question } = await askOne(app);
    await enqueueReply(app, question, "queued-bad", "mars");
    const a = app;
    const receipt = await waitFor(async () => {
      const r = await a.parley.commands.getReceipt({ commandId: "queued-bad" });
      return r && r.apply_state !== "queued" && r;
    });
    expect(receipt).toMatchObject({ apply_state: "rejected", error: { code: "invalid_answer" } });
  });

  it("two appliers racing over one queued command apply it once and keep its applied receipt", async () => {
    app = await startTestApp();
    const { question } = await askOne(app);
    const closed = closedEvents(app, question.id);
    await enqueueReply(app, question, "queued-2", "eu");
    await Promise.all([app.parley.applyInbox(), app.parley.applyInbox(), app.parley.applyInbox()]);
    expect(closed).toHaveLength(1);
    expect(await app.parley.commands.getReceipt({ commandId: "queued-2" })).toMatchObject({ apply_state: "applied", outcome: "answered" });
  });
});
