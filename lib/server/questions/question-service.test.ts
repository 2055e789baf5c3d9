import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Question, QuestionSpec } from "../../protocol/question";
import { createDb, type Db } from "../db/client";
import { migrateSqlite } from "../db/migrate";
import { DomainEvents } from "../events";
import { createQuestionService, type QuestionService } from "./question-service";

let dir: string;
let db: Db;
let events: DomainEvents;
let questions: QuestionService;
let closed: Question[];

const spec = (over: Partial<QuestionSpec> = {}): QuestionSpec => ({
  kind: "question",
  prompt: "Which environment?",
  options: ["production", "staging"],
  multi: false,
  allowCustom: false,
  detail: null,
  timeoutMs: 60_000,
  ...over,
});

let n = 0;
async function ask(over: Partial<QuestionSpec> = {}) {
  return questions.create({ id: `q${++n}`, runId: "r1", sessionId: "s1", owner: "deploy", spec: spec(over) });
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-q-"));
  const url = `file:${path.join(dir, "q.db")}`;
  migrateSqlite(url, path.resolve("prisma/migrations"));
  db = createDb(url);
  events = new DomainEvents();
  questions = createQuestionService({ db, events });
  closed = [];
  events.on("question.closed", (q) => closed.push(q));
  await db.chatSession.create({ data: { id: "s1", title: "t" } });
  await db.run.create({ data: { id: "r1", sessionId: "s1", functionName: "deploy", input: "null", status: "running" } });
});

afterEach(async () => {
  questions.dispose();
  await db.$disconnect();
  rmSync(dir, { recursive: true, force: true });
});

describe("question service", () => {
  it("stores a question as pending with its expiry and announces it", async () => {
    const asked: Question[] = [];
    events.on("question.asked", (q) => asked.push(q));
    const q = await ask();
    expect(q).toMatchObject({ status: "pending", owner: "deploy", options: ["production", "staging"] });
    expect(Date.parse(q.expiresAt!) - Date.parse(q.createdAt)).toBe(60_000);
    expect(asked.map((a) => a.id)).toEqual([q.id]);
    expect((await questions.listPending({ sessionId: "s1" })).map((p) => p.id)).toEqual([q.id]);
  });

  it("claim-once: of two concurrent replies exactly one wins, the other is told it was already answered", async () => {
    const q = await ask();
    const receipts = await Promise.all([
      questions.reply({ id: q.id, value: "production", by: "socket" }),
      questions.reply({ id: q.id, value: "staging", by: "rest" }),
    ]);
    const outcomes = receipts.map((r) => r.outcome).sort();
    expect(outcomes).toEqual(["already_answered", "answered"]);
    const winner = receipts.find((r) => r.outcome === "answered")!;
    expect(closed).toHaveLength(1);
    expect(closed[0]!.answer).toBe(winner.question.answer);
    expect((await questions.getQuestion({ id: q.id })).answer).toBe(winner.question.answer);
  });

  it("a reply and a decline racing: one wins, the late one gets already_answered", async () => {
    const q = await ask();
    const [a, b] = await Promise.all([
      questions.reject({ id: q.id, message: "no", by: "rest" }),
      questions.reply({ id: q.id, value: "staging", by: "socket" }),
    ]);
    const outcomes = [a.outcome, b.outcome];
    expect(outcomes.filter((o) => o === "already_answered")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "answered" || o === "declined")).toHaveLength(1);
    expect(closed).toHaveLength(1);
  });

  it("an invalid answer changes nothing", async () => {
    const q = await ask();
    await expect(questions.reply({ id: q.id, value: "moon", by: "rest" })).rejects.toMatchObject({ code: "invalid_answer" });
    expect((await questions.getQuestion({ id: q.id })).status).toBe("pending");
    expect(closed).toHaveLength(0);
  });

  it("reply to an unknown id is a not_found error", async () => {
    await expect(questions.reply({ id: "nope", value: "x", by: "rest" })).rejects.toMatchObject({ code: "not_found:question" });
  });

  it("a decline keeps the feedback", async () => {
    const q = await ask();
    const receipt = await questions.reject({ id: q.id, message: "  not now  ", by: "socket" });
    expect(receipt).toMatchObject({ outcome: "declined", question: { status: "declined", feedback: "not now" } });
  });

  it("times out on its own at expiry; a reply after that is already_closed", async () => {
    const q = await ask({ timeoutMs: 50 });
    await new Promise((r) => setTimeout(r, 200));
    expect(closed.map((c) => [c.id, c.status, c.closedBy])).toEqual([[q.id, "timed_out", "timeout"]]);
    expect((await questions.reply({ id: q.id, value: "staging", by: "rest" })).outcome).toBe("already_closed");
  });

  it("a question without timeout has no expiry", async () => {
    const q = await ask({ timeoutMs: null });
    expect(q.expiresAt).toBeNull();
  });

  it("closeForRun ends only what is still pending, once", async () => {
    const a = await ask();
    const b = await ask();
    await questions.reply({ id: a.id, value: "staging", by: "rest" });
    const ended = await questions.closeForRun({ runId: "r1", status: "cancelled", by: "stop" });
    expect(ended.map((q) => q.id)).toEqual([b.id]);
    expect(await questions.closeForRun({ runId: "r1", status: "cancelled", by: "stop" })).toEqual([]);
    expect((await questions.getQuestion({ id: a.id })).status).toBe("answered");
  });
});
