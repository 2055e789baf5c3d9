import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../protocol/policy";
import type { Question, QuestionSpec } from "../../protocol/question";
import { QuestionSpecSchema, type QuestionSpecInput } from "../../protocol/question";
import type { ApprovalSpec } from "../../protocol/permissions";
import { createCommandService } from "../ledger/command-ledger";
import { createDb, type Db } from "../store/db/client";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";
import { DomainEvents } from "../events";
import { createQuestionService, type QuestionService } from "./question-service";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";
import { createSessionService } from "../sessions/session-service";

// Who may answer, and approvals that need several people: on whichever engine the suite runs (test-pg.mjs: PostgreSQL).
let testDb: TestDatabase;
let db: Db;
let fixture: FixtureDb;
let questions: QuestionService;
let closed: Question[];
let updated: Question[];

const approval: ApprovalSpec = {
  tool: "shell",
  input: { command: "rm -rf build" },
  preview: { type: "command", command: "rm -rf build", cwd: "." },
  subject: "rm -rf build",
  subjectKind: "command",
  cwd: null,
  always: [],
  dangerous: true,
  fallback: "deny",
} as unknown as ApprovalSpec;

let n = 0;
function ask(over: Partial<QuestionSpecInput>): Promise<Question> {
  n++;
  const spec: QuestionSpec = QuestionSpecSchema.parse({ kind: "question", prompt: "Ship it?", timeoutMs: 60_000, ...over });
  return questions.create({ id: `q${n}`, run: { id: "r1", sessionId: "s1", functionName: "deploy", policy: { ...DEFAULT_POLICY, maxRequests: 1000 } }, seq: n, digest: `d${n}`, spec });
}
const askApproval = (approvals: QuestionSpecInput["approvals"], over: Partial<QuestionSpecInput> = {}) => ask({ kind: "approval", prompt: "Run rm -rf build?", approval, approvals, ...over });

beforeEach(async () => {
  testDb = await createTestDatabase("parley_teams");
  db = await createDb(testDb.url);
  fixture = await openFixtureDb(testDb.url);
  const events = new DomainEvents();
  questions = createQuestionService({ db, events, commands: createCommandService({ db }) });
  closed = [];
  updated = [];
  events.on("question.closed", (q) => closed.push(q));
  events.on("question.updated", (q) => updated.push(q));
  await fixture.chatSession.create({ data: { id: "s1", title: "t", ownerId: "alice" } });
  await fixture.sessionMember.createMany({ data: ["bob", "carol", "dave"].map((userId) => ({ sessionId: "s1", userId, addedBy: "alice" })) });
  await fixture.run.create({ data: { id: "r1", sessionId: "s1", functionName: "deploy", input: "null", status: "running" } });
});

afterEach(async () => {
  questions.dispose();
  await fixture.$disconnect();
  await db.close();
  await testDb.drop();
});

describe("who may answer", () => {
  it("any member answers a question that names nobody, and the answer records who", async () => {
    const q = await ask({ kind: "confirm" });
    const receipt = await questions.reply({ id: q.id, value: true, by: "socket", person: "bob" });
    expect(receipt.outcome).toBe("answered");
    expect(await questions.getQuestion({ id: q.id })).toMatchObject({ status: "answered", closedBy: "socket", closedByUser: "bob" });
  });

  it("a member not named gets not_an_answerer from a reply and a reject, and nothing changes; a stranger still gets not found", async () => {
    const q = await ask({ kind: "confirm", answerers: ["carol"] });
    await expect(questions.reply({ id: q.id, value: true, by: "rest", person: "bob" })).rejects.toMatchObject({ code: "not_an_answerer", status: 403 });
    await expect(questions.reject({ id: q.id, by: "socket", person: "alice", commandId: "c-owner" })).rejects.toMatchObject({ code: "not_an_answerer" });
    await expect(questions.reply({ id: q.id, value: true, by: "rest", person: "mallory" })).rejects.toMatchObject({ code: "not_found:question" });
    expect((await questions.getQuestion({ id: q.id })).status).toBe("pending");
    expect(await fixture.command.count()).toBe(0);
    expect(await questions.reply({ id: q.id, value: true, by: "terminal", person: "carol" })).toMatchObject({ outcome: "answered", question: { closedByUser: "carol" } });
  });

  it("a question may name only people in its chat: asking for a stranger is refused, naming them, and nothing is stored", async () => {
    await expect(ask({ kind: "confirm", answerers: ["bob", "zed"] })).rejects.toMatchObject({ code: "invalid_answerers", message: expect.stringContaining('"zed" is not in this chat') });
    await expect(ask({ kind: "confirm", escalate: [{ after: "1m", to: ["yan", "zed"] }] })).rejects.toMatchObject({ code: "invalid_answerers" });
    await expect(askApproval({ required: 1, from: ["alice", "xi"] })).rejects.toMatchObject({ code: "invalid_answerers" });
    expect(await fixture.question.count()).toBe(0);
  });

  it("the answerers' error names who it waits for", async () => {
    const q = await ask({ kind: "confirm", answerers: ["carol", "dave"] });
    await expect(questions.reply({ id: q.id, value: true, by: "rest", person: "bob" })).rejects.toThrow("Only carol or dave may answer this question");
  });

  it("an administrator sees a session they are not a member of, but answers only where the question lets any member", async () => {
    const open = await ask({ kind: "confirm" });
    const named = await ask({ kind: "confirm", answerers: ["carol"] });
    await expect(questions.reply({ id: named.id, value: true, by: "rest", person: "local", admin: true })).rejects.toMatchObject({ code: "not_an_answerer" });
    expect((await questions.reply({ id: open.id, value: true, by: "rest", person: "local", admin: true })).outcome).toBe("answered");
  });
});

describe("an approval that needs two of three", () => {
  it("counts each person once, shows the votes, and settles exactly at the second distinct person", async () => {
    const q = await askApproval({ required: 2, from: ["bob", "carol", "dave"] });
    expect(q.approvals).toEqual({ required: 2, from: ["bob", "carol", "dave"], rejections: 1 });
    const first = await questions.reply({ id: q.id, value: "once", by: "socket", person: "bob", commandId: "c1" });
    expect(first).toMatchObject({ outcome: "voted", apply_state: "applied", question: { status: "pending", votes: [{ user: "bob", decision: "allow" }] } });
    // Bob again, from another tab and from a terminal: still one vote.
    const again = await questions.reply({ id: q.id, value: "once", by: "terminal", person: "bob", commandId: "c2" });
    expect(again).toMatchObject({ outcome: "voted", question: { status: "pending" } });
    expect(again.question.votes).toHaveLength(1);
    expect(closed).toEqual([]);
    expect(updated.map((u) => u.votes.length)).toEqual([1, 1]);
    const second = await questions.reply({ id: q.id, value: "once", by: "rest", person: "carol", commandId: "c3" });
    expect(second).toMatchObject({ outcome: "answered", question: { status: "answered", answer: "once", closedByUser: "carol", closedBy: "rest" } });
    expect(second.question.votes.map((v) => v.user)).toEqual(["bob", "carol"]);
    expect(closed.map((c) => c.id)).toEqual([q.id]);
    const late = await questions.reply({ id: q.id, value: "once", by: "socket", person: "dave" });
    expect(late.outcome).toBe("already_answered");
    expect(await fixture.questionVote.count({ where: { questionId: q.id } })).toBe(2);
    // Replaying a vote's command returns its receipt, counts nothing more.
    expect(await questions.reply({ id: q.id, value: "once", by: "socket", person: "bob", commandId: "c1" })).toEqual(first);
  });

  it("one rejection rejects with its feedback; a person's later change of mind decides nothing", async () => {
    const q = await askApproval({ required: 2, from: ["bob", "carol", "dave"] });
    await questions.reply({ id: q.id, value: "once", by: "socket", person: "bob" });
    const flip = await questions.reject({ id: q.id, by: "socket", person: "bob", message: "changed my mind" });
    expect(flip).toMatchObject({ outcome: "voted", question: { status: "pending", votes: [{ user: "bob", decision: "allow" }] } });
    const no = await questions.reject({ id: q.id, by: "rest", person: "dave", message: "not on a Friday" });
    expect(no).toMatchObject({ outcome: "declined", question: { status: "declined", feedback: "not on a Friday", closedByUser: "dave" } });
  });

  it("rejections: 2 needs two people to reject", async () => {
    const q = await askApproval({ required: 3, from: ["bob", "carol", "dave"], rejections: 2 });
    expect((await questions.reject({ id: q.id, by: "socket", person: "bob" })).outcome).toBe("voted");
    expect((await questions.reject({ id: q.id, by: "socket", person: "carol" })).outcome).toBe("declined");
  });

  it("only the people it names vote, and an approval of several is allowed once, never always", async () => {
    const q = await askApproval({ required: 2, from: ["bob", "carol"] });
    await expect(questions.reply({ id: q.id, value: "once", by: "socket", person: "dave" })).rejects.toMatchObject({ code: "not_an_answerer" });
    await expect(questions.reply({ id: q.id, value: "always", by: "socket", person: "bob" })).rejects.toMatchObject({ code: "invalid_answer" });
    expect(await fixture.questionVote.count()).toBe(0);
  });

  it("a tab that joins after a vote sees it: the session's snapshot carries the votes of its pending and its settled approvals", async () => {
    const sessions = createSessionService({ db, events: new DomainEvents() });
    const waiting = await askApproval({ required: 2, from: ["bob", "carol", "dave"] });
    const settled = await askApproval({ required: 2, from: ["bob", "carol", "dave"] });
    await questions.reply({ id: waiting.id, value: "once", by: "socket", person: "bob" });
    for (const person of ["carol", "dave"]) await questions.reply({ id: settled.id, value: "once", by: "socket", person });
    const snapshot = await sessions.getSnapshot({ id: "s1" });
    expect(snapshot.pendingQuestions.map((q) => [q.id, q.votes.map((v) => v.user)])).toEqual([[waiting.id, ["bob"]]]);
    expect(snapshot.closedQuestions.map((q) => [q.id, q.votes.map((v) => v.user)])).toEqual([[settled.id, ["carol", "dave"]]]);
  });

  it("lists the votes in the order they counted, whatever each node's clock says: the last is the one that settled it, closed when it counted", async () => {
    // A node whose clock is a second behind (or a vote stamped before it waited for the hold).
    const behind = createQuestionService({ db, events: new DomainEvents(), commands: createCommandService({ db }), now: () => new Date(Date.now() - 1_000) });
    const q = await askApproval({ required: 2, from: ["bob", "carol", "dave"] });
    await questions.reply({ id: q.id, value: "once", by: "socket", person: "bob" });
    const settled = await behind.reply({ id: q.id, value: "once", by: "rest", person: "carol" });
    expect(settled).toMatchObject({ outcome: "answered", question: { closedByUser: "carol" } });
    const stored = await questions.getQuestion({ id: q.id });
    for (const read of [settled.question, stored]) {
      expect(read.votes.map((v) => v.user)).toEqual(["bob", "carol"]);
      expect(Date.parse(read.votes[1]!.at)).toBeGreaterThan(Date.parse(read.votes[0]!.at));
      expect(read.closedAt).toBe(read.votes[1]!.at);
    }
    behind.dispose();
  });

  it("three people voting at once settle it once, with exactly two votes counted", async () => {
    for (let round = 0; round < 10; round++) {
      const q = await askApproval({ required: 2, from: ["bob", "carol", "dave"] });
      const receipts = await Promise.all(["bob", "carol", "dave"].map((person) => questions.reply({ id: q.id, value: "once", by: "socket", person })));
      expect(receipts.filter((r) => r.outcome === "answered")).toHaveLength(1);
      expect(receipts.filter((r) => r.outcome === "voted")).toHaveLength(1);
      expect(receipts.filter((r) => r.outcome === "already_answered")).toHaveLength(1);
      expect(await fixture.questionVote.count({ where: { questionId: q.id } })).toBe(2);
      expect(closed.filter((c) => c.id === q.id)).toHaveLength(1);
    }
  });
});

describe("escalation", () => {
  const waitFor = async (done: () => boolean, what: string) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    if (!done()) throw new Error(`timed out waiting for ${what}`);
  };

  it("after its time with nobody allowed answering, the next people may answer and are told; the step is taken once", async () => {
    const told: Array<[string, string[]]> = [];
    const events = new DomainEvents();
    questions.dispose();
    questions = createQuestionService({ db, events, commands: createCommandService({ db }) });
    events.on("question.escalated", (q, to) => told.push([q.id, to]));
    events.on("question.updated", (q) => updated.push(q));
    const q = await ask({ kind: "confirm", answerers: ["bob"], escalate: [{ after: 80, to: ["carol"] }] });
    await expect(questions.reply({ id: q.id, value: true, by: "socket", person: "carol" })).rejects.toMatchObject({ code: "not_an_answerer" });
    await waitFor(() => told.length > 0, "the escalation");
    expect(told).toEqual([[q.id, ["carol"]]]);
    expect(updated.at(-1)).toMatchObject({ id: q.id, escalated: 1, status: "pending" });
    // Another node's timer for the same step finds it taken.
    expect(await questions.escalate(q.id)).toBeNull();
    expect(await questions.reply({ id: q.id, value: true, by: "socket", person: "carol" })).toMatchObject({ outcome: "answered", question: { closedByUser: "carol" } });
  });

  it("a question answered in time never escalates", async () => {
    const q = await ask({ kind: "confirm", answerers: ["bob"], escalate: [{ after: 60, to: ["carol"] }] });
    await questions.reply({ id: q.id, value: true, by: "socket", person: "bob" });
    await new Promise((r) => setTimeout(r, 120));
    expect(updated).toEqual([]);
    expect((await questions.getQuestion({ id: q.id })).escalated).toBe(0);
  });

  it("survives a restart: steps that fell due while no server ran are taken at start-up, in order", async () => {
    const q = await ask({
      kind: "confirm",
      answerers: ["bob"],
      escalate: [
        { after: 50, to: ["carol"] },
        { after: 100, to: ["dave"] },
      ],
    });
    // The server stops before either step is due.
    questions.dispose();
    await new Promise((r) => setTimeout(r, 150));
    expect((await questions.getQuestion({ id: q.id })).escalated).toBe(0);
    const events = new DomainEvents();
    const told: string[][] = [];
    events.on("question.escalated", (_q, to) => told.push(to));
    questions = createQuestionService({ db, events, commands: createCommandService({ db }) });
    await questions.rescheduleExpiries();
    await waitFor(() => told.length === 2, "both steps");
    expect(told).toEqual([["carol"], ["dave"]]);
    const stored = await questions.getQuestion({ id: q.id });
    expect(stored).toMatchObject({ escalated: 2, status: "pending" });
    expect(await fixture.question.findUnique({ where: { id: q.id } })).toMatchObject({ escalateAt: null });
    expect((await questions.reply({ id: q.id, value: false, by: "rest", person: "dave" })).outcome).toBe("answered");
  });
});

describe("a question's spec", () => {
  it("parses again the same once parsed (the worker checks it, then the server): escalation steps keep their times", () => {
    const once = QuestionSpecSchema.parse({ kind: "question", prompt: "Refund?", timeoutMs: null, answerers: ["bob"], escalate: [{ after: "2s", to: ["carol", "carol"] }] });
    expect(once.escalate).toEqual([{ afterMs: 2000, to: ["carol"] }]);
    expect(QuestionSpecSchema.parse(once)).toEqual(once);
    expect(QuestionSpecSchema.safeParse({ ...once, escalate: [{ afterMs: 2000, after: "2s", to: ["carol"] }] }).success).toBe(false);
  });
});
