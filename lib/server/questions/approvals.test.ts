import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalSpec, PermissionDecision, PermissionRule, PermissionRuleInput } from "../../protocol/permissions";
import { DEFAULT_POLICY } from "../../protocol/policy";
import type { Question, QuestionSpec } from "../../protocol/question";
import { createCommandService } from "../ledger/command-ledger";
import { createDb, type Db } from "../store/db/client";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";
import type { SqlTx } from "../store/sql-executor";
import { statement } from "../store/typed-sql";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";
import { DomainEvents } from "../events";
import type { ApprovalJudge } from "./approvals";
import { createQuestionService, type QuestionService } from "./question-service";

/** Approvals are questions: decided by rules when they are asked, answered once/always/reject, "always" settling what it covers. */

let testDb: TestDatabase;
let db: Db;
let fixture: FixtureDb;
let events: DomainEvents;
let questions: QuestionService;
let asked: Question[];
let closed: Question[];
let delivered: Question[];
let announced: string[];
/** The decision the fake rules give, by subject. */
let decisions: Record<string, PermissionDecision>;
let failAddRule = false;
const insertRule = statement((q, p: { id: string; sessionId: string; tool: string; pattern: string; decision: string; source: string; at: Date }) =>
  q.insertInto("PermissionRule").values({ id: p.id, sessionId: p.sessionId, tool: p.tool, pattern: p.pattern, decision: p.decision, source: p.source, createdAt: p.at }),
);

const judge: ApprovalJudge = {
  decide: async (_sessionId, approval) => ({
    decision: decisions[approval.subject] ?? (approval.dangerous ? "ask" : "allow"),
    rule: decisions[approval.subject]
      ? ({
          id: "r",
          tool: approval.tool,
          pattern: approval.subject,
          decision: decisions[approval.subject]!,
          sessionId: null,
          source: "project",
          createdAt: null,
          unknownTool: false,
        } satisfies PermissionRule)
      : null,
  }),
  async addRule(sessionId: string, rule: PermissionRuleInput, source, tx?: SqlTx) {
    await tx!.changes(insertRule, { id: randomUUID(), sessionId, tool: rule.tool, pattern: rule.pattern, decision: rule.decision, source, at: new Date() });
    if (failAddRule) throw new Error("disk full");
    return { ...rule, id: "x", sessionId, source, createdAt: null, unknownTool: false };
  },
  // `docs/**` covers what starts with `docs/`.
  covers: (rule, approval) => rule.tool === approval.tool && approval.subject.startsWith(rule.pattern.replace("**", "")),
  announce: (sessionId) => announced.push(sessionId),
};

const approval = (subject: string, over: Partial<ApprovalSpec> = {}): ApprovalSpec => ({
  tool: "write_file",
  input: { path: subject },
  preview: { type: "diff", path: subject, diff: "+hello" },
  subject,
  subjectKind: "path",
  cwd: null,
  always: [{ pattern: "docs/**", cwd: null, label: "any file under `docs/`" }],
  dangerous: true,
  fallback: "deny",
  ...over,
});

let n = 0;
function ask(spec: ApprovalSpec, { canAsk = true, runId = "r1" } = {}) {
  n++;
  const q: QuestionSpec = { kind: "approval", prompt: `Write ${spec.subject}?`, options: [], multi: false, allowCustom: false, detail: null, timeoutMs: 60_000, replySchema: null, approval: spec };
  return questions.create({ id: `q${n}`, run: { id: runId, sessionId: "s1", functionName: "writer", policy: DEFAULT_POLICY, canAsk }, seq: n, digest: `d${n}`, spec: q });
}

beforeEach(async () => {
  testDb = await createTestDatabase("parley_approvals");
  db = await createDb(testDb.url);
  fixture = await openFixtureDb(testDb.url);
  events = new DomainEvents();
  questions = createQuestionService({ db, events, commands: createCommandService({ db }), judge, settled: (q) => delivered.push(q) });
  asked = [];
  closed = [];
  delivered = [];
  announced = [];
  decisions = {};
  failAddRule = false;
  events.on("question.asked", (q) => asked.push(q));
  events.on("question.closed", (q) => closed.push(q));
  await fixture.chatSession.create({ data: { id: "s1", title: "t" } });
  await fixture.run.create({ data: { id: "r1", sessionId: "s1", functionName: "writer", input: "null", status: "running" } });
  await fixture.run.create({ data: { id: "r2", sessionId: "s1", functionName: "writer", input: "null", status: "running" } });
});

afterEach(async () => {
  questions.dispose();
  await fixture.$disconnect();
  await db.close();
  await testDb.drop();
});

describe("an approval when it is asked", () => {
  it("waits for a person when no rule decides a dangerous tool", async () => {
    const q = await ask(approval("docs/a.md"));
    expect(q).toMatchObject({ kind: "approval", status: "pending", approval: { tool: "write_file", subject: "docs/a.md" } });
    expect(asked.map((a) => a.id)).toEqual([q.id]);
    expect(delivered).toEqual([]);
  });

  it("is settled at once by an allow or deny rule, or when nobody can answer: no card, an audit of why", async () => {
    decisions = { "docs/ok.md": "allow", "secrets.env": "deny" };
    const allowed = await ask(approval("docs/ok.md"));
    const denied = await ask(approval("secrets.env"));
    const safe = await ask(approval("README.md", { dangerous: false }));
    const headless = await ask(approval("docs/b.md"), { canAsk: false });
    expect(asked).toEqual([]);
    expect(allowed).toMatchObject({ status: "answered", answer: "once", closedBy: "rule", feedback: 'Allowed by the rule "write_file docs/ok.md".' });
    expect(denied).toMatchObject({ status: "declined", closedBy: "rule", feedback: 'Denied by the rule "write_file secrets.env".' });
    expect(safe).toMatchObject({ status: "answered", closedBy: "rule", feedback: "Allowed: write_file is not a dangerous tool." });
    expect(headless).toMatchObject({ status: "declined", closedBy: "rule", feedback: expect.stringMatching(/Nobody can approve write_file/) });
    expect(delivered.map((q) => q.id)).toEqual([allowed.id, denied.id, safe.id, headless.id]);
    expect(closed.map((q) => q.id)).toEqual(delivered.map((q) => q.id));
    expect(allowed.expiresAt).toBeNull();
  });
});

describe("answering an approval", () => {
  it("takes once or always; anything else is a 422 naming the allowed answers and changes nothing", async () => {
    const q = await ask(approval("docs/a.md"));
    for (const value of ["yes", true, ["once"], { allow: true }]) {
      const err = await questions.reply({ id: q.id, value, by: "socket" }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "invalid_answer", status: 422, details: { allowed: ["once", "always", "always_wider", "reject"] } });
    }
    expect((await questions.getQuestion({ id: q.id })).status).toBe("pending");
    const receipt = await questions.reply({ id: q.id, value: "once", by: "rest" });
    expect(receipt).toMatchObject({ outcome: "answered", question: { status: "answered", answer: "once", closedBy: "rest" } });
    expect(await fixture.permissionRule.count()).toBe(0);
  });

  it("rejected with feedback: the feedback is what the run gets", async () => {
    const q = await ask(approval("docs/a.md"));
    await questions.reject({ id: q.id, message: "  write to docs/new.md instead ", by: "cli" });
    expect(delivered.at(-1)).toMatchObject({ id: q.id, status: "declined", feedback: "write to docs/new.md instead", closedBy: "cli" });
  });

  it('"Allow always" adds the session rule and settles every other pending approval it covers, in every run of the session, and nothing else', async () => {
    const first = await ask(approval("docs/a.md"));
    const second = await ask(approval("docs/b.md"), { runId: "r2" });
    const elsewhere = await ask(approval("src/c.ts"));
    const shell = await ask(approval("docs/d.md", { tool: "shell" }));
    const rejected = await ask(approval("docs/e.md"));
    await questions.reject({ id: rejected.id, by: "socket" });

    await questions.reply({ id: first.id, value: "always", by: "socket" });
    const rules = await fixture.permissionRule.findMany();
    expect(rules).toMatchObject([{ sessionId: "s1", tool: "write_file", pattern: "docs/**", decision: "allow", source: "always" }]);
    expect(await questions.getQuestion({ id: second.id })).toMatchObject({ status: "answered", answer: "always", closedBy: "rule", feedback: 'Allowed by "Allow always" (write_file docs/**).' });
    expect((await questions.getQuestion({ id: elsewhere.id })).status).toBe("pending");
    expect((await questions.getQuestion({ id: shell.id })).status).toBe("pending");
    // Every tab retracts both cards; both runs get their answer; the rules panel is told after the commit.
    expect(closed.slice(-2).map((q) => q.id)).toEqual([first.id, second.id]);
    expect(delivered.slice(-2).map((q) => [q.id, q.status])).toEqual([
      [first.id, "answered"],
      [second.id, "answered"],
    ]);
    expect(announced).toEqual(["s1"]);
  });

  it('"Allow always" is all or nothing: when the rule cannot be stored, no approval is settled', async () => {
    const first = await ask(approval("docs/a.md"));
    const second = await ask(approval("docs/b.md"));
    failAddRule = true;
    await expect(questions.reply({ id: first.id, value: "always", by: "socket" })).rejects.toThrow("disk full");
    expect((await questions.getQuestion({ id: first.id })).status).toBe("pending");
    expect((await questions.getQuestion({ id: second.id })).status).toBe("pending");
    expect(await fixture.permissionRule.count()).toBe(0);
    expect(announced).toEqual([]);
    failAddRule = false;
    await questions.reply({ id: first.id, value: "always", by: "socket" });
    expect((await questions.getQuestion({ id: second.id })).status).toBe("answered");
  });
});

describe("the run's question limit", () => {
  it("counts approvals a person was asked, not those a rule settled at once", async () => {
    decisions = { "docs/ok.md": "allow" };
    for (let i = 0; i < DEFAULT_POLICY.maxRequests + 2; i++) await ask(approval("docs/ok.md"));
    const err = await Promise.resolve()
      .then(async () => {
        for (let i = 0; i < DEFAULT_POLICY.maxRequests; i++) await ask(approval(`docs/${i}.md`));
        return ask(approval("docs/one-too-many.md"));
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "max_requests_exceeded" });
  });
});
