import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import type { Question } from "./question";
import { describeZodError } from "./errors";
import { nameOfFrom } from "./display-names";
import { AUDIT_LIMIT_DEFAULT, AuditEntrySchema, AuditPageSchema, AuditQuerySchema, askedLine, auditCursor, outcomeLine, parseAuditAfter, personLabel, ruleDecisionLine, settledVia } from "./audit";

const base: Question = aQuestion({
  owner: "writer",
  seq: 0,
  kind: "approval",
  approval: { tool: "write_file", input: {}, preview: { type: "text", text: "" }, subject: "docs/a.md", subjectKind: "path", cwd: null, always: [], dangerous: true, fallback: "deny" },
  prompt: "Write docs/a.md?",
  options: [],
  createdAt: "2026-12-01T00:00:00.000Z",
  expiresAt: "2026-12-01T00:30:00.000Z",
});
const q = (over: Partial<Question>): Question => ({ ...base, ...over });

describe("the audit of a question", () => {
  it("says who asked for what", () => {
    expect(askedLine(base)).toBe("writer asked to use write_file: docs/a.md");
    expect(askedLine(q({ kind: "question", approval: null, prompt: "Which env?" }))).toBe("writer asked: Which env?");
  });

  it("says how an approval ended and from where", () => {
    expect(outcomeLine(base)).toBe("");
    expect(outcomeLine(q({ status: "answered", answer: "once", closedBy: "socket" }))).toBe("Allowed once, in a browser tab");
    expect(outcomeLine(q({ status: "answered", answer: "always", closedBy: "cli" }))).toBe("Allowed always, from the CLI");
    expect(outcomeLine(q({ status: "answered", answer: "always", closedBy: "rule", feedback: 'Allowed by "Allow always" (write_file docs/**).' }))).toBe(
      "Allowed by rule “write_file docs/**” (from Allow always)",
    );
    expect(outcomeLine(q({ status: "answered", answer: "always_wider", closedBy: "socket" }))).toBe("Allowed always (the wider rule), in a browser tab");
    expect(outcomeLine(q({ status: "declined", closedBy: "rest", feedback: "not there" }))).toBe("Rejected, over REST: not there");
    expect(outcomeLine(q({ status: "timed_out", closedBy: "timeout" }))).toBe("No answer in 30 minutes: denied");
  });

  it("says how a question ended", () => {
    const question = q({ kind: "question", approval: null });
    expect(outcomeLine({ ...question, status: "answered", answer: "staging", closedBy: "rest" })).toBe('Answered "staging", over REST');
    expect(outcomeLine({ ...question, status: "declined", closedBy: "socket", feedback: "later" })).toBe("Declined, in a browser tab: later");
    expect(outcomeLine({ ...question, status: "answered", answer: "staging", closedBy: "push" })).toBe('Answered "staging", from a notification');
  });

  it("says a form's answer by its labels and choice titles", () => {
    const replySchema = { type: "object", properties: { nights: { type: "integer", title: "Nights" }, currency: { type: "string", enum: ["EUR"], enumNames: ["Euro"] } } };
    const form = { ...q({ kind: "question", approval: null }), replySchema, status: "answered" as const, answer: { nights: 4, currency: "EUR" }, closedBy: "terminal" as const };
    expect(outcomeLine(form)).toBe("Answered (Nights: 4 · Currency: Euro), in a terminal");
  });
});

describe("who settled it, in words", () => {
  const alice = q({ status: "answered", answer: "once", closedBy: "socket", closedByUser: "alice" });

  it("names the person and the surface; the reader's own answer reads 'by you'", () => {
    expect(outcomeLine(alice)).toBe("Allowed once by alice, in a browser tab");
    expect(outcomeLine(alice, { viewer: "alice" })).toBe("Allowed once by you, in a browser tab");
    expect(outcomeLine(alice, { viewer: "bob" })).toBe("Allowed once by alice, in a browser tab");
    expect(outcomeLine(q({ status: "declined", closedBy: "push", closedByUser: "bob", feedback: "not now" }))).toBe("Rejected by bob, from a notification: not now");
    const question = q({ kind: "question", approval: null });
    expect(outcomeLine({ ...question, status: "declined", closedBy: "cli", closedByUser: "dave", feedback: "later" })).toBe("Declined by dave, from the CLI: later");
    expect(outcomeLine({ ...question, status: "answered", answer: "eu", closedBy: "text", closedByUser: "erin" })).toBe('Answered "eu" by erin, with a text command');
    // No person recorded (an older row, a server closer): the surface alone, as before.
    expect(outcomeLine(q({ status: "answered", answer: "once", closedBy: "rest" }))).toBe("Allowed once, over REST");
  });

  it("names each person by their one display name: the administrator 'Administrator' until renamed, the reader 'you'", () => {
    const local = { closedBy: "cli" as const, closedByUser: "local" };
    expect(settledVia(local)).toBe("by Administrator, from the CLI");
    expect(settledVia(local, { viewer: "local" })).toBe("by you, from the CLI");
    expect(personLabel("alice")).toBe("alice");
    const nameOf = nameOfFrom({ local: "Boss", alice: "Ann" });
    expect(settledVia(local, { nameOf })).toBe("by Boss, from the CLI");
    expect(personLabel("alice", { nameOf })).toBe("Ann");
    expect(personLabel("alice", { nameOf, viewer: "alice" })).toBe("you");
    // Someone the names leave out (removed since): by their id.
    expect(personLabel("gone", { nameOf })).toBe("gone");
    expect(settledVia({ closedBy: null, closedByUser: "alice" })).toBe("by alice");
    expect(settledVia({ closedBy: "socket", closedByUser: null })).toBe("in a browser tab");
    expect(settledVia({ closedBy: null, closedByUser: null })).toBeNull();
  });

  it("a rule's decision names the rule, from its row when the audit has it, else from the server's words", () => {
    const byRule = q({ status: "answered", answer: "once", closedBy: "rule", closedByRule: "r1", feedback: 'Allowed by the rule "shell npm test*".' });
    expect(outcomeLine(byRule)).toBe("Allowed by rule “shell npm test*”");
    expect(outcomeLine(byRule, { rule: { tool: "make", pattern: "build*", cwd: "packages/app" } })).toBe("Allowed by rule “make build* in packages/app”");
    expect(outcomeLine(q({ status: "declined", closedBy: "rule", feedback: 'Denied by the rule "shell rm*".' }))).toBe("Denied by rule “shell rm*”");
    // A decision no rule names keeps the server's reason.
    expect(outcomeLine(q({ status: "answered", answer: "once", closedBy: "rule", feedback: "Allowed: read_file is not a dangerous tool." }))).toBe("Allowed: read_file is not a dangerous tool.");
    expect(outcomeLine(q({ status: "declined", closedBy: "rule" }))).toBe("Denied by a rule");
    expect(ruleDecisionLine(false, null)).toBe("Denied by rule");
  });

  it("an allow with an edited input says so", () => {
    expect(outcomeLine({ ...alice, editedInput: { command: "npm test" } })).toBe("Allowed once (input edited) by alice, in a browser tab");
  });
});

describe("the audit's query", () => {
  const issues = (query: Record<string, string>) => {
    const parsed = AuditQuerySchema.safeParse(query);
    return parsed.success ? "" : describeZodError(parsed.error);
  };

  it("takes a session, an ISO time or a cursor, and a limit (100 by default, at most 500)", () => {
    expect(AuditQuerySchema.parse({})).toEqual({ limit: AUDIT_LIMIT_DEFAULT });
    expect(AuditQuerySchema.parse({ session: " Deploys ", limit: "500", after: "2026-12-05T11:02:11+01:00" })).toEqual({
      session: "Deploys",
      limit: 500,
      after: { at: "2026-12-05T10:02:11.000Z", id: null },
    });
    expect(AuditQuerySchema.parse({ after: "2026-12-05" }).after).toEqual({ at: "2026-12-05T00:00:00.000Z", id: null });
    const cursor = auditCursor({ closedAt: "2026-12-05T10:02:11.123Z", id: "3f1c9a9e-8d1b-4c57-9f25-6f0a3f2b9d10" });
    expect(cursor).toMatch(/^c1\.[A-Za-z0-9_-]+$/);
    expect(AuditQuerySchema.parse({ after: cursor }).after).toEqual({ at: "2026-12-05T10:02:11.123Z", id: "3f1c9a9e-8d1b-4c57-9f25-6f0a3f2b9d10" });
  });

  it("refuses what it cannot read, saying what it takes", () => {
    expect(issues({ limit: "0" })).toBe("limit: a whole number from 1 to 500");
    expect(issues({ limit: "501" })).toBe("limit: a whole number from 1 to 500");
    expect(issues({ limit: "2.5" })).toBe("limit: a whole number from 1 to 500");
    expect(issues({ limit: "ten" })).toBe("limit: a whole number from 1 to 500");
    for (const after of ["yesterday", "2026-13-45", "c1.!!!", `c1.${btoa("2026-12-05T10:02:11.123Z")}`, `c1.${btoa("not-a-time q1")}`, `c1.${btoa("2026-12-05T10:02:11.123Z a b")}`, ""]) {
      expect(issues({ after }), after).toBe("after: an ISO time (2026-12-05T10:00:00Z) or the `next` cursor of a page");
    }
    expect(issues({ session: "" })).toBe("session: an id or a title");
    expect(issues({ sesion: "x" })).toBe('Unrecognized key: "sesion"');
    expect(parseAuditAfter("2026-12-05T10:02:11.123Z")).toEqual({ at: "2026-12-05T10:02:11.123Z", id: null });
  });

  it("an entry and a page are what the route and the CLI print", () => {
    const entry = {
      id: "q1",
      sessionId: "s1",
      sessionTitle: "Deploys",
      runId: "r1",
      kind: "approval",
      askedBy: "deploy",
      asked: "deploy asked to use shell: npm test",
      status: "answered",
      answer: "once",
      feedback: null,
      closedBy: "socket",
      via: "in a browser tab",
      person: "alice",
      personName: "Ann",
      ruleId: null,
      rule: null,
      editedInput: null,
      originalInput: null,
      votes: [{ user: "alice", name: "Ann", decision: "allow", at: "2026-12-05T10:02:11.000Z", surface: "socket", feedback: null }],
      outcome: "Allowed once by Ann, in a browser tab",
      createdAt: "2026-12-05T10:00:00.000Z",
      closedAt: "2026-12-05T10:02:11.123Z",
      cursor: auditCursor({ closedAt: "2026-12-05T10:02:11.123Z", id: "q1" }),
    };
    expect(AuditPageSchema.parse({ entries: [entry], next: null }).entries[0]).toEqual(entry);
    expect(AuditEntrySchema.safeParse({ ...entry, status: "pending" }).success).toBe(false);
    expect(AuditEntrySchema.safeParse({ ...entry, votes: [{ ...entry.votes[0], decision: "maybe" }] }).success).toBe(false);
  });
});
