import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { QuestionSpecSchema, type Question } from "../../protocol/question";
import { HISTORY_PAGE_ITEMS } from "../../protocol/entities";
import { AppError } from "../../protocol/errors";
import { FakePool, FakeWorker, ManualClock, startFakeParley, until } from "../../../tests/helpers/fakes";
import { createParley } from "../app";
import { DEFAULT_TITLE } from "./session-service";
import { loadChatHistory } from "./chat-history";

type Fx = Awaited<ReturnType<typeof startFakeParley>>;
let fx: Fx;
beforeEach(async () => {
  fx = await startFakeParley({ maxWorkers: 4, parkAfterMs: 60_000, stopGraceMs: 1_000 });
});
afterEach(async () => {
  await fx.close();
});

const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return "ok";
  } catch (err) {
    return AppError.from(err).code;
  }
};

function workerOf(runId: string): Promise<FakeWorker> {
  return until(() => fx.pool.created.find((w) => w.sentOf("run.start").some((m) => m.runId === runId)));
}

/** A run of `f` in the session, waiting on a question its fake worker asked. */
async function runWithQuestion(sessionId: string) {
  const run = await fx.parley.runs.startRun({ sessionId, functionName: "f" });
  const worker = await workerOf(run.id);
  await until(() => fx.parley.runs.liveStates()[run.id] === "working");
  const questionId = randomUUID();
  const spec = QuestionSpecSchema.parse({ kind: "question", prompt: "Which size?", options: ["S", "M"], timeoutMs: null });
  worker.say({ type: "question.ask", runId: run.id, seq: 0, digest: "d0", questionId, spec });
  await until(() => fx.parley.runs.liveStates()[run.id] === "waiting");
  return { run, worker, questionId };
}

/** Answers the worker's cancel as a real one would: the function ends cancelled. */
async function finishOnCancel(worker: FakeWorker, runId: string) {
  await until(() => worker.sentOf("run.cancel").some((m) => m.runId === runId));
  worker.say({ type: "run.finished", runId, status: "cancelled", result: null, error: { code: "run_cancelled", message: "Stopped." } });
}

describe("automatic titles", () => {
  const functions = [{ name: "order-coffee", command: "coffee" }];

  it("a slash command that starts no function leaves the chat untitled; the next real message names it", async () => {
    const { sessions } = fx.parley;
    const s = await sessions.createSession();
    await sessions.titleFromMessage({ id: s.id, text: "/help", functions });
    expect((await sessions.getSession({ id: s.id })).title).toBe(DEFAULT_TITLE);
    await sessions.titleFromMessage({ id: s.id, text: "plan my week", functions });
    expect((await sessions.getSession({ id: s.id })).title).toBe("plan my week");
    await sessions.titleFromMessage({ id: s.id, text: "something else", functions });
    expect((await sessions.getSession({ id: s.id })).title).toBe("plan my week");
  });

  it("a function's slash command titles an untitled chat after the function, told to every tab; a later one does not retitle it", async () => {
    const { sessions, events } = fx.parley;
    const s = await sessions.createSession();
    const seen: string[] = [];
    events.on("session.updated", (u) => u.id === s.id && seen.push(u.title));
    await sessions.titleFromMessage({ id: s.id, text: "/coffee", functions });
    expect((await sessions.getSession({ id: s.id })).title).toBe("Order coffee");
    expect(seen).toContain("Order coffee");
    await sessions.titleFromMessage({ id: s.id, text: "plan my week", functions });
    expect((await sessions.getSession({ id: s.id })).title).toBe("Order coffee");
  });

  it("a chat message that starts a loaded function by its command titles the chat after it; /help does not", async () => {
    // A server whose functions have chat commands (the shared fixture's have none), on the same database (which the fixture closes).
    const parley = await createParley(
      {
        db: { ...fx.parley.db, close: async () => {} },
        pool: new FakePool(2),
        functions: [
          { name: "chat", description: "chat", command: null },
          { name: "order-coffee", description: "Orders a drink.", command: "coffee" },
        ],
        clock: new ManualClock(),
      },
      { inboxPollMs: 60_000 },
    );
    try {
      const coffee = await parley.sessions.createSession();
      await parley.postMessage({ sessionId: coffee.id, text: "/coffee" });
      expect((await parley.sessions.getSession({ id: coffee.id })).title).toBe("Order coffee");
      const help = await parley.sessions.createSession();
      await parley.postMessage({ sessionId: help.id, text: "/help" });
      expect((await parley.sessions.getSession({ id: help.id })).title).toBe(DEFAULT_TITLE);
    } finally {
      await parley.close();
    }
  });

  it("a title a person chose stays when a slash command starts a function", async () => {
    const { sessions } = fx.parley;
    const s = await sessions.createSession();
    await sessions.renameSession({ id: s.id, title: "Morning" });
    await sessions.titleFromMessage({ id: s.id, text: "/coffee", functions });
    expect((await sessions.getSession({ id: s.id })).title).toBe("Morning");
  });
});

describe("renaming a session", () => {
  it("stores the title, announces session.updated, and no automatic title replaces it (even 'New chat')", async () => {
    const { sessions, events } = fx.parley;
    const s = await sessions.createSession();
    const seen: string[] = [];
    events.on("session.updated", (u) => u.id === s.id && seen.push(u.title));
    const renamed = await sessions.renameSession({ id: s.id, title: "Trip to Lisbon" });
    expect(renamed).toMatchObject({ id: s.id, title: "Trip to Lisbon" });
    expect(seen).toContain("Trip to Lisbon");
    await sessions.titleFromMessage({ id: s.id, text: "book flights" });
    expect((await sessions.getSession({ id: s.id })).title).toBe("Trip to Lisbon");
    await sessions.renameSession({ id: s.id, title: DEFAULT_TITLE });
    await sessions.titleFromMessage({ id: s.id, text: "book hotels" });
    expect((await sessions.getSession({ id: s.id })).title).toBe(DEFAULT_TITLE);
  });

  it("an unknown or deleted session is not_found", async () => {
    const { sessions } = fx.parley;
    expect(await codeOf(sessions.renameSession({ id: "nope", title: "x" }))).toBe("not_found:session");
    const s = await sessions.createSession();
    await fx.parley.deleteSession({ id: s.id });
    expect(await codeOf(sessions.renameSession({ id: s.id, title: "x" }))).toBe("not_found:session");
  });
});

describe("deleting a session", () => {
  it("stops its runs and cancels their questions before session.deleted, then everything is gone", async () => {
    const { parley } = fx;
    const s = await parley.sessions.createSession();
    const other = await parley.sessions.createSession();
    const { run, worker, questionId } = await runWithQuestion(s.id);
    const order: string[] = [];
    parley.events.on("question.closed", (q: Question) => order.push(`closed:${q.id}:${q.status}`));
    parley.events.on("session.deleted", ({ id }) => order.push(`deleted:${id}`));
    const deleting = parley.deleteSession({ id: s.id });
    await finishOnCancel(worker, run.id);
    expect(await deleting).toEqual({ id: s.id, deleted: true });
    expect(order).toEqual([`closed:${questionId}:cancelled`, `deleted:${s.id}`]);
    expect(await codeOf(parley.sessions.getSession({ id: s.id }))).toBe("not_found:session");
    expect(await codeOf(parley.sessions.getSnapshot({ id: s.id }))).toBe("not_found:session");
    expect(await codeOf(parley.runs.getRun({ id: run.id }))).toBe("not_found:run");
    expect(await fx.fixture.question.count({ where: { sessionId: s.id } })).toBe(0);
    expect(await fx.fixture.message.count({ where: { sessionId: s.id } })).toBe(0);
    expect((await parley.sessions.listSessions()).map((x) => x.id)).toEqual([other.id]);
    expect(parley.runs.liveCount()).toBe(0);
  });

  it("a second delete, at once or later, is not_found; only one session.deleted is told", async () => {
    const { parley } = fx;
    const s = await parley.sessions.createSession();
    let told = 0;
    parley.events.on("session.deleted", () => told++);
    const results = await Promise.all([0, 1, 2, 3].map(() => codeOf(parley.deleteSession({ id: s.id }))));
    expect(results.filter((r) => r === "ok")).toHaveLength(1);
    expect(results.filter((r) => r === "not_found:session")).toHaveLength(3);
    expect(await codeOf(parley.deleteSession({ id: s.id }))).toBe("not_found:session");
    expect(told).toBe(1);
  });

  it("a run start or chat message after the delete began never leaves a run in it", async () => {
    const { parley } = fx;
    const s = await parley.sessions.createSession();
    const { run, worker } = await runWithQuestion(s.id);
    const deleting = parley.deleteSession({ id: s.id });
    // The delete is under way (its mark is written first): starts now must be refused.
    await until(async () => (await fx.fixture.chatSession.findUnique({ where: { id: s.id } }))?.deletedAt != null);
    expect(await codeOf(parley.runs.startRun({ sessionId: s.id, functionName: "f" }))).toBe("not_found:session");
    expect(await codeOf(parley.postMessage({ sessionId: s.id, text: "hello" }))).toBe("not_found:session");
    await finishOnCancel(worker, run.id);
    await deleting;
    expect(await fx.fixture.run.count({ where: { sessionId: s.id } })).toBe(0);
  });

  it("a run's insert checks the mark in its own transaction (the check cannot go stale)", async () => {
    const { parley } = fx;
    const s = await parley.sessions.createSession();
    await parley.sessions.markDeleted({ id: s.id });
    const store = parley.runs.store;
    const insert = store.create({
      id: randomUUID(),
      sessionId: s.id,
      ownerId: "local",
      functionName: "f",
      input: null,
      policy: { maxRequests: 8, maxPromptChars: 4096, maxReplyBytes: 65536, maxActiveMs: 1_800_000 },
      canAsk: true,
    });
    expect(await codeOf(insert)).toBe("not_found:session");
    await parley.sessions.removeDeleted({ id: s.id });
  });

  it("a worker finishing its run while the delete stops it still ends in one state, and the delete completes", async () => {
    const { parley } = fx;
    const s = await parley.sessions.createSession();
    const run = await parley.runs.startRun({ sessionId: s.id, functionName: "f" });
    const worker = await workerOf(run.id);
    await until(() => parley.runs.liveStates()[run.id] === "working");
    const deleting = parley.deleteSession({ id: s.id });
    worker.say({ type: "run.finished", runId: run.id, status: "succeeded", result: { ok: true } });
    await deleting;
    expect(await fx.fixture.chatSession.count({ where: { id: s.id } })).toBe(0);
    expect(parley.runs.liveCount()).toBe(0);
  });

  it("a delete waits for a run that has ended in the database but is still recording its end (its failure message), then removes the chat", async () => {
    const { parley } = fx;
    const s = await parley.sessions.createSession();
    const run = await parley.runs.startRun({ sessionId: s.id, functionName: "f" });
    const worker = await workerOf(run.id);
    await until(() => parley.runs.liveStates()[run.id] === "working");
    // The run's failure message waits at a gate: its end is in the database, its supervisor not done.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const addMessage = parley.sessions.addMessage.bind(parley.sessions);
    const blocked = vi.spyOn(parley.sessions, "addMessage").mockImplementation(async (input) => {
      if (input.role === "system") await gate;
      return addMessage(input);
    });
    worker.say({ type: "run.finished", runId: run.id, status: "failed", error: { code: "boom", message: "boom" } });
    await until(async () => (await parley.runs.getRun({ id: run.id })).status === "failed");
    let deleted = false;
    const deleting = parley.deleteSession({ id: s.id }).then(() => (deleted = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(deleted).toBe(false);
    open();
    await deleting;
    blocked.mockRestore();
    expect(parley.runs.liveCount()).toBe(0);
    expect(await fx.fixture.chatSession.count({ where: { id: s.id } })).toBe(0);
  });

  it("a delete the server stopped in the middle of is finished at the next start, before any run resumes", async () => {
    const { parley } = fx;
    const s = await parley.sessions.createSession();
    const { run } = await runWithQuestion(s.id);
    await parley.sessions.markDeleted({ id: s.id });
    // A second server on the same database (as after a crash): the marked chat is removed, its run not resumed.
    const pool = new FakePool(2);
    const again = await createParley({ db: parley.db, pool, functions: [{ name: "f", description: "f" }], clock: new ManualClock() }, { inboxPollMs: 60_000 });
    expect(await fx.fixture.chatSession.count({ where: { id: s.id } })).toBe(0);
    expect(await fx.fixture.run.count({ where: { id: run.id } })).toBe(0);
    expect(pool.created).toHaveLength(0);
    again.runs.detachAll();
    again.questions.dispose();
    // The first server's supervisor still holds the run's fake worker: let it go.
    const finishing = parley.runs.stopSessionRuns({ sessionId: s.id, reason: "test" });
    await finishing;
  });

  it("the visibility checks treat a session being deleted, its runs and its questions as not found", async () => {
    const { parley } = fx;
    const s = await parley.sessions.createSession();
    const { run, questionId } = await runWithQuestion(s.id);
    const { visibility } = parley.access;
    await visibility.session("local", s.id);
    await parley.sessions.markDeleted({ id: s.id });
    expect(await codeOf(visibility.session("local", s.id))).toBe("not_found:session");
    expect(await codeOf(visibility.run("local", run.id))).toBe("not_found:run");
    expect(await codeOf(visibility.question("local", questionId))).toBe("not_found:question");
    // Finish the delete so the fake worker's run does not outlive the test.
    const finishing = parley.runs.stopSessionRuns({ sessionId: s.id, reason: "test" });
    await finishOnCancel(await workerOf(run.id), run.id);
    await finishing;
    await parley.sessions.removeDeleted({ id: s.id });
  });
});

describe("the order of a session's rows", () => {
  it("messages and runs made in one millisecond are listed in the order they were made, in the snapshot and in the chat's history", async () => {
    const { sessions, runs } = fx.parley;
    const session = await sessions.createSession();
    const texts = Array.from({ length: 12 }, (_, i) => `line ${i}`);
    // Every row below gets the same createdAt.
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-12-02T00:00:00.000Z") });
    try {
      for (const text of texts) await sessions.addMessage({ sessionId: session.id, role: "user", text });
      const started: string[] = [];
      for (let i = 0; i < 6; i++) started.push((await runs.startRun({ sessionId: session.id, functionName: "f" })).id);
      const snapshot = await sessions.getSnapshot({ id: session.id });
      expect(new Set(snapshot.messages.map((m) => m.createdAt)).size).toBe(1);
      expect(snapshot.messages.map((m) => m.text)).toEqual(texts);
      expect(snapshot.runs.map((r) => r.id)).toEqual(started);
      expect((await runs.listRuns({ sessionId: session.id })).map((r) => r.id)).toEqual(started);
      expect((await loadChatHistory(fx.db, session.id)).map((h) => h.text)).toEqual(texts);
    } finally {
      vi.useRealTimers();
    }
  });

  it("history comes a page at a time, from the end: rows of one millisecond are never skipped or listed twice", async () => {
    const { sessions } = fx.parley;
    const session = await sessions.createSession();
    const texts = Array.from({ length: HISTORY_PAGE_ITEMS * 2 + 10 }, (_, i) => `line ${i}`);
    // Most rows share one millisecond, so pages split inside it.
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-12-02T00:00:00.000Z") });
    try {
      for (const [i, text] of texts.entries()) {
        if (i === 5 || i === texts.length - 5) vi.setSystemTime(Date.now() + 1);
        await sessions.addMessage({ sessionId: session.id, role: "user", text });
      }
    } finally {
      vi.useRealTimers();
    }
    const snapshot = await sessions.getSnapshot({ id: session.id });
    expect(snapshot.messages.map((m) => m.text)).toEqual(texts.slice(-HISTORY_PAGE_ITEMS));
    const seen = [...snapshot.messages];
    let before = snapshot.before;
    while (before !== null) {
      const page = await sessions.getHistory({ id: session.id, before });
      expect(page.messages.length).toBeLessThanOrEqual(HISTORY_PAGE_ITEMS);
      seen.unshift(...page.messages);
      before = page.before;
    }
    expect(seen.map((m) => m.text)).toEqual(texts);
    expect(await codeOf(sessions.getHistory({ id: session.id, before: "not-a-cursor" }))).toBe("bad_request");
  });
});
