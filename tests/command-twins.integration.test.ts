import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { QuestionRejectCommand, QuestionReplyCommand, ReplyReceipt } from "../lib/protocol/commands";
import type { Ack } from "../lib/protocol/socket";
import { startTestApp, waitFor, type TestApp, type TestClient } from "./helpers/test-app";

/**
 * Twenty concurrent twins of each command (same commandId, same payload) against a real Parley
 * (SQLite, worker processes, Socket.IO) called in-process: calls interleave at every `await`,
 * which is where a check-then-insert lets twins through. Over HTTP the Next server tends to
 * finish one request before starting the next, so tests/concurrency.integration.test.ts cannot
 * show these races reliably; it checks the same contract end to end.
 */

const TWINS = 20;
let app: TestApp;
let tabs: TestClient[];

beforeAll(async () => {
  app = await startTestApp({ parkAfterMs: 60_000 });
  tabs = await Promise.all(Array.from({ length: 4 }, () => app.client()));
});
afterAll(async () => {
  await app.close();
});

// Runs a failing test left behind must not hold the workers the next test needs.
const sessions: string[] = [];
afterEach(async () => {
  for (const sessionId of sessions.splice(0)) {
    const runs = await app.parley.runs.listRuns({ sessionId });
    await Promise.all(runs.filter((r) => ["running", "waiting_input"].includes(r.status)).map((r) => app.parley.runs.stopRun({ id: r.id })));
  }
});

async function newSession() {
  const session = await app.parley.sessions.createSession();
  sessions.push(session.id);
  return session;
}

async function askingRun(prompt: string) {
  const session = await newSession();
  const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt } });
  const [question] = await waitFor(async () => {
    const pending = await app.parley.questions.listPending({ sessionId: session.id });
    return pending.length > 0 && pending;
  });
  return { session, run, question: question! };
}

const ended = (runId: string) =>
  waitFor(async () => {
    const run = await app.parley.runs.getRun({ id: runId });
    return !["running", "waiting_input"].includes(run.status) && run;
  });

async function overSockets(event: "question.reply" | "question.reject", payload: unknown): Promise<Array<ReplyReceipt | { error: unknown }>> {
  const send = (tab: TestClient) => (event === "question.reply" ? tab.emitWithAck(event, payload as QuestionReplyCommand) : tab.emitWithAck(event, payload as QuestionRejectCommand));
  const acks: Array<Ack<ReplyReceipt>> = await Promise.all(Array.from({ length: TWINS }, (_, i) => send(tabs[i % tabs.length]!)));
  return acks.map((a) => (a.ok ? a.data : { error: a.error }));
}

describe("twenty concurrent twins of one command", () => {
  it("starting a run: one run is created and every twin gets the same run and receipt", async () => {
    const session = await newSession();
    const started = await Promise.allSettled(
      Array.from({ length: TWINS }, () => app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Once?" }, commandId: "twin-start" })),
    );

    const errors = started.filter((s) => s.status === "rejected").map((s) => String(s.reason));
    expect(errors).toEqual([]);
    const runs = started.map((s) => (s as PromiseFulfilledResult<Awaited<ReturnType<TestApp["parley"]["runs"]["startRun"]>>>).value);
    const created = await app.parley.runs.listRuns({ sessionId: session.id });
    expect(created).toHaveLength(1);
    for (const r of runs) {
      expect(r.id).toBe(created[0]!.id);
      expect(r.receipt).toEqual(runs[0]!.receipt);
    }
  });

  it("replying over twenty sockets: one answer, and every twin gets the same answered receipt", async () => {
    const { run, question } = await askingRun("Reply once?");

    const receipts = await overSockets("question.reply", { id: question.id, value: "once", commandId: "twin-reply" });

    expect(receipts[0]).toMatchObject({ commandId: "twin-reply", apply_state: "applied", outcome: "answered", question: { status: "answered", answer: "once" } });
    for (const r of receipts) expect(r).toEqual(receipts[0]);
    expect(await ended(run.id)).toMatchObject({ status: "succeeded", result: { outcome: "answered", value: "once" } });
  });

  it("declining over twenty sockets: declined once, and every twin gets the same declined receipt", async () => {
    const { run, question } = await askingRun("Decline once?");

    const receipts = await overSockets("question.reject", { id: question.id, message: "no", commandId: "twin-reject" });

    expect(receipts[0]).toMatchObject({ commandId: "twin-reject", apply_state: "applied", outcome: "declined", question: { status: "declined", feedback: "no" } });
    for (const r of receipts) expect(r).toEqual(receipts[0]);
    expect(await ended(run.id)).toMatchObject({ status: "succeeded", result: { outcome: "declined", feedback: "no" } });
  });

  it("resuming: every twin gets the same receipt and the run is loaded into a worker once", async () => {
    const { run, question } = await askingRun("Resume once?");

    const receipts = await Promise.all(Array.from({ length: TWINS }, () => app.parley.resume({ runId: run.id, commandId: "twin-resume" })));

    expect(receipts[0]).toMatchObject({ commandId: "twin-resume", kind: "resume", runId: run.id });
    for (const r of receipts) expect(r).toEqual(receipts[0]);
    await app.parley.questions.reply({ id: question.id, value: "resumed", by: "rest" });
    expect(await ended(run.id)).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("stopping: the run ends cancelled once, and every twin gets the run with the same receipt (outcome stopped)", async () => {
    const { run, question } = await askingRun("Stop once?");

    const stopped = await Promise.all(Array.from({ length: TWINS }, () => app.parley.runs.stopRun({ id: run.id, commandId: "twin-stop" })));

    for (const s of stopped) expect(s).toMatchObject({ id: run.id, status: "cancelled" });
    expect(stopped[0]!.receipt).toMatchObject({ commandId: "twin-stop", kind: "stop_run", outcome: "stopped", runId: run.id });
    for (const s of stopped) expect(s.receipt).toEqual(stopped[0]!.receipt);
    expect((await app.parley.questions.getQuestion({ id: question.id })).status).toBe("cancelled");
  });
});
