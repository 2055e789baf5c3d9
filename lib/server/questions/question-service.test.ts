import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_POLICY, type RunPolicy } from "../../protocol/policy";
import type { Question, QuestionSpec } from "../../protocol/question";
import { createCommandService } from "../ledger/command-ledger";
import { createDb, type Db } from "../store/db/client";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";
import { DomainEvents } from "../events";
import { createQuestionService, type QuestionService } from "./question-service";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";

let testDb: TestDatabase;
let db: Db;
let fixture: FixtureDb;
let events: DomainEvents;
let questions: QuestionService;
let closed: Question[];
/** Statements and transactions the database client sent (its observer). */
const sent = { reads: 0, writes: 0, transactions: 0 };

const spec = (over: Partial<QuestionSpec> = {}): QuestionSpec => ({
  kind: "question",
  prompt: "Which environment?",
  options: ["production", "staging"],
  multi: false,
  allowCustom: false,
  detail: null,
  timeoutMs: 60_000,
  replySchema: null,
  ...over,
});

let n = 0;
async function ask(over: Partial<QuestionSpec> = {}, policy: RunPolicy = DEFAULT_POLICY) {
  n++;
  await fixture.run.update({ where: { id: "r1" }, data: { policy: JSON.stringify(policy) } });
  return questions.create({
    id: `q${n}`,
    run: { id: "r1", sessionId: "s1", functionName: "deploy", policy },
    seq: n,
    digest: `d${n}`,
    spec: spec(over),
  });
}

beforeEach(async () => {
  testDb = await createTestDatabase("parley_q");
  db = await createDb(testDb.url, {
    observer: { query: (kind) => (kind === "read" ? sent.reads++ : sent.writes++), transaction: () => sent.transactions++ },
  });
  fixture = await openFixtureDb(testDb.url);
  events = new DomainEvents();
  questions = createQuestionService({ db, events, commands: createCommandService({ db }) });
  closed = [];
  events.on("question.closed", (q) => closed.push(q));
  await fixture.chatSession.create({ data: { id: "s1", title: "t" } });
  await fixture.run.create({ data: { id: "r1", sessionId: "s1", functionName: "deploy", input: "null", status: "running" } });
});

afterEach(async () => {
  questions.dispose();
  await fixture.$disconnect();
  await db.close();
  await testDb.drop();
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
    const receipts = await Promise.all([questions.reply({ id: q.id, value: "production", by: "socket" }), questions.reply({ id: q.id, value: "staging", by: "rest" })]);
    const outcomes = receipts.map((r) => r.outcome).sort();
    expect(outcomes).toEqual(["already_answered", "answered"]);
    const winner = receipts.find((r) => r.outcome === "answered")!;
    expect(closed).toHaveLength(1);
    expect(closed[0]!.answer).toBe(winner.question.answer);
    expect((await questions.getQuestion({ id: q.id })).answer).toBe(winner.question.answer);
  });

  it("a reply and a decline racing: one wins, the late one gets already_answered", async () => {
    const q = await ask();
    const [a, b] = await Promise.all([questions.reject({ id: q.id, message: "no", by: "rest" }), questions.reply({ id: q.id, value: "staging", by: "socket" })]);
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

  it("records the question in the run's journal", async () => {
    const q = await ask();
    const entry = await fixture.journalEntry.findUniqueOrThrow({ where: { runId_seq: { runId: "r1", seq: q.seq } } });
    expect(entry).toMatchObject({ kind: "question", questionId: q.id });
    expect(q.pendingId).toMatch(/^p_/);
    expect(q.targetDigest).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("the reply's database work", () => {
  // One joined read of the question (held), its run and session, then the claim and the receipt, in one transaction (BEGIN and COMMIT counted as writes) on either engine.
  const replyWork = { reads: 1, writes: 4, transactions: 1 };
  it("is one joined read, then the claim with its receipt, atomically", async () => {
    const q = await ask();
    Object.assign(sent, { reads: 0, writes: 0, transactions: 0 });
    const receipt = await questions.reply({ id: q.id, value: "staging", by: "socket", person: "local" });
    expect(receipt.outcome).toBe("answered");
    expect(sent).toEqual(replyWork);
    expect(closed.at(-1)).toMatchObject({ id: q.id, status: "answered", answer: "staging", closedBy: "socket", rootRunId: "r1" });
    expect(await questions.getQuestion({ id: q.id })).toEqual(closed.at(-1));
  });

  // The question limit's count, then one transaction on either engine: its run still held (a read), the question, its journal entry (BEGIN and COMMIT counted as writes).
  const askWork = { reads: 2, writes: 4, transactions: 1 };
  it("a question asked by a run whose root is known is stored with its journal entry atomically and announced as it reads back", async () => {
    Object.assign(sent, { reads: 0, writes: 0, transactions: 0 });
    const asked = await questions.create({
      id: "qd",
      run: { id: "r1", sessionId: "s1", functionName: "deploy", policy: DEFAULT_POLICY, rootRunId: "r1" },
      seq: 7,
      digest: "d7",
      spec: spec({ default: "staging", detail: "Pick one", multi: true, allowCustom: true, replySchema: null }),
    });
    expect(sent).toEqual(askWork);
    expect(await questions.getQuestion({ id: "qd" })).toEqual(asked);
    expect(await fixture.journalEntry.findUnique({ where: { runId_seq: { runId: "r1", seq: 7 } } })).toMatchObject({ kind: "question", digest: "d7", questionId: "qd", name: "Which environment?" });
  });

  it("a question of another owner, or of a session being deleted, is not found and stays pending", async () => {
    const q = await ask();
    await expect(questions.reply({ id: q.id, value: "staging", by: "socket", person: "someone-else" })).rejects.toMatchObject({ code: "not_found:question" });
    await fixture.chatSession.update({ where: { id: "s1" }, data: { deletedAt: new Date() } });
    await expect(questions.reject({ id: q.id, by: "socket", person: "local" })).rejects.toMatchObject({ code: "not_found:question" });
    expect((await questions.getQuestion({ id: q.id })).status).toBe("pending");
    expect(await fixture.command.count()).toBe(0);
  });

  it("a late reply under a commandId keeps its receipt, and the same command again gets it", async () => {
    const q = await ask();
    await questions.reply({ id: q.id, value: "production", by: "socket" });
    const late = await questions.reply({ id: q.id, value: "staging", by: "rest", commandId: "c-late" });
    expect(late).toMatchObject({ apply_state: "target_closed", outcome: "already_answered" });
    expect(await questions.reply({ id: q.id, value: "staging", by: "rest", commandId: "c-late" })).toEqual(late);
  });
});

describe("idempotent replies", () => {
  it("the same reply sent twice under one commandId returns the same receipt", async () => {
    const q = await ask();
    const first = await questions.reply({ id: q.id, value: "staging", commandId: "c-1", by: "rest" });
    const again = await questions.reply({ id: q.id, value: "staging", commandId: "c-1", by: "rest" });
    expect(first).toMatchObject({ commandId: "c-1", kind: "send_input", record_state: "durably_recorded", apply_state: "applied", outcome: "answered" });
    expect(again).toEqual(first);
    expect(closed).toHaveLength(1);
  });

  it("a different payload under the same commandId is refused", async () => {
    const q = await ask();
    await questions.reply({ id: q.id, value: "staging", commandId: "c-2", by: "rest" });
    await expect(questions.reply({ id: q.id, value: "production", commandId: "c-2", by: "rest" })).rejects.toMatchObject({ code: "command_conflict" });
  });

  it("a reply to a closed question gets target_closed and changes nothing", async () => {
    const q = await ask();
    await questions.reply({ id: q.id, value: "staging", by: "rest" });
    const late = await questions.reply({ id: q.id, value: "production", by: "rest" });
    expect(late).toMatchObject({ apply_state: "target_closed", outcome: "already_answered", question: { answer: "staging" } });
  });

  it("a reply naming another digest gets target_closed and leaves the question pending", async () => {
    const q = await ask();
    const stale = await questions.reply({ id: q.id, value: "staging", digest: "0".repeat(64), by: "rest" });
    expect(stale).toMatchObject({ apply_state: "target_closed", outcome: "stale_target" });
    expect((await questions.getQuestion({ id: q.id })).status).toBe("pending");
    const ok = await questions.reply({ id: q.id, value: "staging", digest: q.targetDigest, by: "rest" });
    expect(ok.outcome).toBe("answered");
  });
});

describe("policy and reply schemas", () => {
  const codeOf = async (work: Promise<unknown>) =>
    work.then(
      () => "no error",
      (err: { code?: string }) => err.code,
    );

  it("refuses the ninth question of a run under the default policy", async () => {
    for (let i = 0; i < 8; i++) await ask();
    expect(await codeOf(ask())).toBe("max_requests_exceeded");
  });

  it("refuses a prompt longer than the policy allows", async () => {
    expect(await codeOf(ask({ prompt: "x".repeat(4_097) }))).toBe("prompt_too_long");
    expect(await codeOf(ask({ prompt: "x".repeat(20) }, { ...DEFAULT_POLICY, maxPromptChars: 10 }))).toBe("prompt_too_long");
  });

  it("refuses a schema with a remote $ref when the question is asked", async () => {
    const schema = { type: "object", properties: { a: { $ref: "https://example.com/schema.json" } } };
    expect(await codeOf(ask({ options: [], replySchema: schema }))).toBe("schema_remote_ref");
    expect(await fixture.question.count()).toBe(0);
  });

  it("refuses a reply over the byte limit, one too deep, and one failing its schema, each with its own code", async () => {
    const schema = { type: "object", properties: { count: { type: "integer", minimum: 1 } }, required: ["count"] };
    const q = await ask({ options: [], replySchema: schema }, { ...DEFAULT_POLICY, maxReplyBytes: 100 });
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(await codeOf(questions.reply({ id: q.id, value: { count: 1, pad: "x".repeat(200) }, by: "rest" }))).toBe("reply_too_large");
    expect(await codeOf(questions.reply({ id: q.id, value: deep, by: "rest" }))).toBe("reply_too_deep");
    expect(await codeOf(questions.reply({ id: q.id, value: { count: 0 }, by: "rest" }))).toBe("reply_schema_mismatch");
    expect((await questions.getQuestion({ id: q.id })).status).toBe("pending");
    expect(await questions.reply({ id: q.id, value: { count: 3 }, by: "rest" })).toMatchObject({ outcome: "answered", question: { answer: { count: 3 } } });
  });
});
