import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QuestionRejectCommand, QuestionReplyCommand, ReplyReceipt } from "../lib/protocol/commands";
import type { Question } from "../lib/protocol/question";
import type { Ack } from "../lib/protocol/socket";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";
import { eventOn, isFinalStatus, openTab, poll, restClient, type RestClient, type Tab } from "./helpers/remote";

/**
 * Concurrency over the real production server (`npm run build` first): real HTTP, real sockets,
 * real worker processes. One server is shared by every test here; each test uses its own session.
 */

const PARK_AFTER_MS = 1_500;
let server: ServerProcess;
let dir: string;
let api: RestClient;
const tabs: Tab[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-concurrency-"));
  server = await startServerProcess({
    port: await freePort(),
    databaseFile: path.join(dir, "concurrency.db"),
    env: { PARLEY_PARK_AFTER_MS: String(PARK_AFTER_MS), PARLEY_MAX_WORKERS: "4" },
  });
  api = restClient(server.url);
}, 90_000);

afterAll(async () => {
  for (const tab of tabs) tab.disconnect();
  await server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function newSession(): Promise<string> {
  return (await api.ok(api.post("/api/sessions", {}))).id;
}

async function joinedTabs(sessionId: string, count: number): Promise<Tab[]> {
  const opened = await Promise.all(Array.from({ length: count }, () => openTab(server.url)));
  tabs.push(...opened);
  for (const tab of opened) {
    const ack = (await tab.emitWithAck("session.join", { sessionId })) as Ack<unknown>;
    expect(ack.ok).toBe(true);
  }
  return opened;
}

async function startRun(sessionId: string, fn: string, input: unknown = {}): Promise<{ id: string }> {
  return api.ok(api.post(`/api/sessions/${sessionId}/runs`, { function: fn, input }));
}

async function pendingQuestionOf(runId: string): Promise<Question> {
  return poll(`a pending question of run ${runId}`, async () => {
    const detail = await api.ok(api.get(`/api/runs/${runId}`));
    return detail.pendingQuestions[0] as Question | undefined;
  });
}

async function finishedRun(runId: string, ms = 20_000) {
  return poll(
    `run ${runId} to end`,
    async () => {
      const run = await api.ok(api.get(`/api/runs/${runId}`));
      return isFinalStatus(run.status) && run;
    },
    ms,
  );
}

async function stopQuietly(runId: string) {
  await api.post(`/api/runs/${runId}/stop`, { commandId: `cleanup-${runId}` });
}

/** A reply or reject over a socket, as a receipt or the ack's error. */
async function socketCommand(tab: Tab, event: "question.reply" | "question.reject", payload: unknown): Promise<ReplyReceipt | { error: unknown }> {
  const ack = event === "question.reply" ? await tab.emitWithAck(event, payload as QuestionReplyCommand) : await tab.emitWithAck(event, payload as QuestionRejectCommand);
  return ack.ok ? ack.data : { error: ack.error };
}

async function restCommand(pathname: string, body: unknown): Promise<ReplyReceipt | { error: unknown }> {
  const res = await api.post(pathname, body);
  return res.status === 200 ? res.body : { error: { status: res.status, ...res.body } };
}

const TWINS = 20;

/**
 * Opens `count` keep-alive connections first, so that concurrent requests reach the server
 * together instead of one connection handshake apart.
 */
async function warmConnections(count: number) {
  await Promise.all(Array.from({ length: count }, () => api.get("/api/health")));
}

describe("twenty concurrent twins of one command (same commandId, same payload)", () => {
  it("starting a run creates one run, and all twenty get the same run and the same receipt", { timeout: 60_000 }, async () => {
    const sessionId = await newSession();
    const body = { function: "test.ask", input: { prompt: "Started once?" }, commandId: "twin-start" };
    await warmConnections(TWINS);
    const answers = await Promise.all(Array.from({ length: TWINS }, () => api.post(`/api/sessions/${sessionId}/runs`, body)));

    expect(answers.map((a) => a.status)).toEqual(Array(TWINS).fill(201));
    const runIds = new Set(answers.map((a) => a.body.id));
    expect(runIds.size).toBe(1);
    for (const a of answers) expect(a.body.receipt).toEqual(answers[0]!.body.receipt);
    expect(answers[0]!.body.receipt).toMatchObject({ commandId: "twin-start", kind: "start_run", apply_state: "applied", runId: answers[0]!.body.id });

    const runs = await api.ok(api.get(`/api/sessions/${sessionId}/runs`));
    expect(runs.map((r: { id: string }) => r.id)).toEqual([...runIds]);
    await stopQuietly([...runIds][0]);
  });

  it("replying (sockets and REST mixed) answers once, and all twenty get the same answered receipt", { timeout: 60_000 }, async () => {
    const sessionId = await newSession();
    const [a, b] = await joinedTabs(sessionId, 2);
    const run = await startRun(sessionId, "test.ask", { prompt: "Reply once?" });
    const question = await pendingQuestionOf(run.id);
    const payload = { value: "only once", commandId: "twin-reply", digest: question.targetDigest };
    await warmConnections(TWINS);

    const receipts = await Promise.all(
      Array.from({ length: TWINS }, (_, i) =>
        i % 2 === 0 ? restCommand(`/api/questions/${question.id}/reply`, payload) : socketCommand(i % 4 === 1 ? a! : b!, "question.reply", { id: question.id, ...payload }),
      ),
    );

    expect(receipts[0]).toMatchObject({ commandId: "twin-reply", kind: "send_input", apply_state: "applied", outcome: "answered", question: { status: "answered", answer: "only once" } });
    for (const r of receipts) expect(r).toEqual(receipts[0]);
    const done = await finishedRun(run.id);
    expect(done).toMatchObject({ status: "succeeded", result: { outcome: "answered", value: "only once" } });
    const snapshot = await api.ok(api.get(`/api/sessions/${sessionId}`));
    expect(snapshot.messages.filter((m: { runId: string; text: string }) => m.runId === run.id && m.text.startsWith("You answered"))).toHaveLength(1);
  });

  it("declining (sockets and REST mixed) declines once, and all twenty get the same declined receipt", { timeout: 60_000 }, async () => {
    const sessionId = await newSession();
    const [a] = await joinedTabs(sessionId, 1);
    const run = await startRun(sessionId, "test.ask", { prompt: "Decline once?" });
    const question = await pendingQuestionOf(run.id);
    const payload = { message: "not now", commandId: "twin-reject", digest: question.targetDigest };
    await warmConnections(TWINS);

    const receipts = await Promise.all(
      Array.from({ length: TWINS }, (_, i) => (i % 2 === 0 ? restCommand(`/api/questions/${question.id}/reject`, payload) : socketCommand(a!, "question.reject", { id: question.id, ...payload }))),
    );

    expect(receipts[0]).toMatchObject({ commandId: "twin-reject", kind: "reject_input", apply_state: "applied", outcome: "declined", question: { status: "declined", feedback: "not now" } });
    for (const r of receipts) expect(r).toEqual(receipts[0]);
    expect(await finishedRun(run.id)).toMatchObject({ status: "succeeded", result: { outcome: "declined", feedback: "not now" } });
  });

  it("resuming a parked run loads it into a worker once, and all twenty get the same receipt", { timeout: 60_000 }, async () => {
    const sessionId = await newSession();
    const run = await startRun(sessionId, "test.ask", { prompt: "Resume once?" });
    const question = await pendingQuestionOf(run.id);
    await poll("the waiting run to be parked", async () => (await api.ok(api.get("/api/health"))).liveRuns === 0, PARK_AFTER_MS + 15_000);
    expect((await api.ok(api.get(`/api/runs/${run.id}`))).attempts).toBe(1);

    await warmConnections(TWINS);
    const answers = await Promise.all(Array.from({ length: TWINS }, () => api.post(`/api/runs/${run.id}/resume`, { commandId: "twin-resume" })));

    expect(answers.map((a) => a.status)).toEqual(Array(TWINS).fill(200));
    expect(answers[0]!.body).toMatchObject({ commandId: "twin-resume", kind: "resume", apply_state: "applied", runId: run.id });
    for (const a of answers) expect(a.body).toEqual(answers[0]!.body);
    await poll("the resumed run to be live", async () => (await api.ok(api.get("/api/health"))).liveRuns === 1);
    // Answer while it is live (before it parks again): the only extra attempt is the resume.
    await api.ok(api.post(`/api/questions/${question.id}/reply`, { value: "resumed" }));
    const done = await finishedRun(run.id);
    expect(done).toMatchObject({ status: "succeeded", result: { value: "resumed" }, attempts: 2 });
  });

  it("stopping ends the run cancelled once, and all twenty get the run with the same receipt (outcome stopped)", { timeout: 60_000 }, async () => {
    const sessionId = await newSession();
    const run = await startRun(sessionId, "test.ask", { prompt: "Stop me?" });
    const question = await pendingQuestionOf(run.id);

    await warmConnections(TWINS);
    const answers = await Promise.all(Array.from({ length: TWINS }, () => api.post(`/api/runs/${run.id}/stop`, { commandId: "twin-stop" })));

    expect(answers.map((a) => a.status)).toEqual(Array(TWINS).fill(200));
    for (const a of answers) expect(a.body).toMatchObject({ id: run.id, status: "cancelled" });
    expect(answers[0]!.body.receipt).toMatchObject({ commandId: "twin-stop", kind: "stop_run", outcome: "stopped", runId: run.id });
    for (const a of answers) expect(a.body.receipt).toEqual(answers[0]!.body.receipt);
    expect((await api.ok(api.get(`/api/questions/${question.id}`))).status).toBe("cancelled");
  });

  it("a stop that arrives after the run finished leaves it finished and says already_ended", { timeout: 30_000 }, async () => {
    const sessionId = await newSession();
    const run = await startRun(sessionId, "test.ask", { prompt: "Finish first?" });
    const question = await pendingQuestionOf(run.id);
    await api.ok(api.post(`/api/questions/${question.id}/reply`, { value: "done" }));
    await finishedRun(run.id);

    const stopped = await api.post(`/api/runs/${run.id}/stop`, { commandId: "late-stop" });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ id: run.id, status: "succeeded", result: { value: "done" }, receipt: { commandId: "late-stop", outcome: "already_ended" } });
  });
});

describe("fifty concurrent replies to one question, sockets and REST mixed", () => {
  /** npm run test:long: 20. */
  const ROUNDS = Number(process.env.PARLEY_REPLY_ROUNDS ?? 5);
  const REPLIES = 50;
  const TABS = 5;

  it(`in each of ${ROUNDS} rounds exactly one is answered, the rest already_answered, the function gets the winner's value and every tab retracts the card once`, { timeout: 180_000 }, async () => {
    const sessionId = await newSession();
    const room = await joinedTabs(sessionId, TABS);
    const retractions = new Map<string, number[]>();
    room.forEach((tab, t) =>
      tab.on("question.replied", (q) => {
        const counts = retractions.get(q.id) ?? Array(TABS).fill(0);
        counts[t]++;
        retractions.set(q.id, counts);
      }),
    );

    for (let round = 0; round < ROUNDS; round++) {
      const asked = room.map((tab) => eventOn(tab, "question.asked", (q) => q.prompt === `Round ${round}?`));
      const run = await startRun(sessionId, "test.ask", { prompt: `Round ${round}?` });
      const question = (await Promise.all(asked))[0]!;
      const ended = room.map((tab) => eventOn(tab, "run.updated", (r) => r.id === run.id && isFinalStatus(r.status), 30_000));

      const receipts = await Promise.all(
        Array.from({ length: REPLIES }, (_, i) => {
          const payload = { value: `round ${round} reply ${i}`, commandId: `round-${round}-reply-${i}` };
          return i % 2 === 0 ? restCommand(`/api/questions/${question.id}/reply`, payload) : socketCommand(room[(i >> 1) % TABS]!, "question.reply", { id: question.id, ...payload });
        }),
      );

      const outcomes = receipts.map((r) => ("outcome" in r ? r.outcome : JSON.stringify(r.error)));
      const winners = receipts.filter((r): r is ReplyReceipt => "outcome" in r && r.outcome === "answered");
      expect(winners, `round ${round}: ${outcomes.join(", ")}`).toHaveLength(1);
      expect(
        outcomes.filter((o) => o === "already_answered"),
        `round ${round}`,
      ).toHaveLength(REPLIES - 1);
      const value = winners[0]!.question.answer;
      for (const r of receipts as ReplyReceipt[]) expect(r.question).toMatchObject({ id: question.id, status: "answered", answer: value });

      for (const r of await Promise.all(ended)) expect(r).toMatchObject({ status: "succeeded", result: { outcome: "answered", value } });
      // Each tab saw the run end after the retraction (one connection keeps its order): count them now.
      expect(retractions.get(question.id), `round ${round}: retractions per tab`).toEqual(Array(TABS).fill(1));
    }
  });
});

describe("one chat turn at a time per session", () => {
  const postMessage = (sessionId: string, text: string) => api.post(`/api/sessions/${sessionId}/messages`, { text });

  for (const count of [2, 6]) {
    it(`${count} concurrent messages while a question waits start no run: each gets 409 session_busy`, { timeout: 60_000 }, async () => {
      const sessionId = await newSession();
      const turn = await api.ok(postMessage(sessionId, "/deploy"));
      await pendingQuestionOf(turn.id);

      const answers = await Promise.all(Array.from({ length: count }, (_, i) => postMessage(sessionId, `coffee ${i}`)));

      expect(answers.map((a) => [a.status, a.body?.error?.code])).toEqual(Array(count).fill([409, "session_busy"]));
      const runs = await api.ok(api.get(`/api/sessions/${sessionId}/runs`));
      expect(runs.map((r: { id: string }) => r.id)).toEqual([turn.id]);
      await stopQuietly(turn.id);
    });
  }

  it("six concurrent messages on an idle session start exactly one run; the other five get 409 session_busy", { timeout: 60_000 }, async () => {
    const sessionId = await newSession();

    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => postMessage(sessionId, `/deploy number ${i}`)));

    const statuses = answers.map((a) => (a.status === 201 ? 201 : `${a.status} ${a.body?.error?.code}`)).sort();
    expect(statuses).toEqual([201, "409 session_busy", "409 session_busy", "409 session_busy", "409 session_busy", "409 session_busy"].sort());
    const started = answers.find((a) => a.status === 201)!.body;
    const runs = await api.ok(api.get(`/api/sessions/${sessionId}/runs`));
    expect(runs.map((r: { id: string }) => r.id)).toEqual([started.id]);
    const snapshot = await api.ok(api.get(`/api/sessions/${sessionId}`));
    expect(snapshot.messages.filter((m: { role: string }) => m.role === "user")).toHaveLength(1);
    for (const r of runs) await stopQuietly(r.id);
  });

  it("a run started explicitly may run beside a waiting turn", { timeout: 30_000 }, async () => {
    const sessionId = await newSession();
    const turn = await api.ok(postMessage(sessionId, "/deploy"));
    await pendingQuestionOf(turn.id);
    const beside = await api.post(`/api/sessions/${sessionId}/runs`, { function: "test.ask", input: { prompt: "Beside?" } });
    expect(beside.status).toBe(201);
    await stopQuietly(turn.id);
    await stopQuietly(beside.body.id);
  });
});
