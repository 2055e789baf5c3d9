import { closedByOf } from "../protocol/surfaces";
import { describe, expect, it } from "vitest";
import type { Question } from "../protocol/question";
import { approvalQuestion, shellSpec } from "./fixtures/approvals";
import { auditOf, describeVia, formatDuration, formatWhen, ruleOf } from "./question-audit";

const opts = { now: new Date("2025-01-01T18:00:00Z"), locale: "en-GB", timeZone: "UTC" };
const closed = (over: Partial<Question>, spec = approvalQuestion().approval!) => auditOf(approvalQuestion({ closedAt: "2025-01-01T12:05:00.000Z", ...over }, spec), opts);

describe("the audit line of a closed approval", () => {
  it("says what was asked: the tool and its subject, and who asked", () => {
    const audit = closed({ status: "answered", answer: "once", closedBy: "socket" });
    expect(audit).toMatchObject({ owner: "Order coffee", tool: "write_file", subject: "docs/notes.md", asked: "write_file docs/notes.md" });
  });

  it("Allow once and Allow always, from a browser tab, the REST API or the CLI, with the time", () => {
    expect(closed({ status: "answered", answer: "once", closedBy: "socket" })).toMatchObject({ outcome: "Allowed once", tone: "allowed", via: "in a browser tab", when: "12:05" });
    expect(closed({ status: "answered", answer: "always", closedBy: "rest" })).toMatchObject({ outcome: "Allowed always", via: "over REST" });
    expect(closed({ status: "answered", answer: "always_wider", closedBy: "socket" })).toMatchObject({ outcome: "Allowed always (the wider rule)" });
    expect(closed({ status: "answered", answer: "once", closedBy: "cli" })).toMatchObject({ via: "from the CLI" });
  });

  it("names who settled it when it is not the reader (the reader's own: 'by you'); the administrator is 'Administrator'", () => {
    const alice = { status: "answered" as const, answer: "once", closedBy: "socket" as const, closedByUser: "alice" };
    expect(closed(alice)).toMatchObject({ outcome: "Allowed once", via: "by alice, in a browser tab" });
    expect(auditOf(approvalQuestion(alice), { ...opts, viewer: "alice" })).toMatchObject({ via: "by you, in a browser tab" });
    expect(auditOf(approvalQuestion(alice), { ...opts, viewer: "local" })).toMatchObject({ via: "by alice, in a browser tab" });
    const local = { status: "declined" as const, closedBy: "cli" as const, closedByUser: "local", feedback: "not now" };
    expect(auditOf(approvalQuestion(local), { ...opts, viewer: "alice" })).toMatchObject({ outcome: "Rejected: not now", via: "by Administrator, from the CLI" });
    expect(auditOf(approvalQuestion(local), { ...opts, viewer: "local" })).toMatchObject({ via: "by you, from the CLI" });
    // A rule's decision names the rule, whoever reads it.
    expect(closed({ status: "answered", answer: "once", closedBy: "rule", closedByRule: "r1", feedback: 'Allowed by the rule "shell npm test*".' }, shellSpec())).toMatchObject({
      outcome: "Allowed by rule “shell npm test*”",
      via: null,
    });
  });

  it("a rejection carries the person's feedback", () => {
    expect(closed({ status: "declined", feedback: "Write to docs/drafts instead", closedBy: "socket" })).toMatchObject({
      outcome: "Rejected: Write to docs/drafts instead",
      tone: "denied",
      via: "in a browser tab",
    });
    expect(closed({ status: "declined", closedBy: "cli" })).toMatchObject({ outcome: "Rejected", via: "from the CLI" });
  });

  it("a rule's decision names the rule (an Allow always one says so) and needs no 'by a rule'", () => {
    expect(closed({ status: "declined", closedBy: "rule", feedback: 'Denied by the rule "shell rm*".' }, shellSpec())).toMatchObject({
      outcome: "Denied by rule “shell rm*”",
      tone: "denied",
      via: null,
    });
    expect(closed({ status: "answered", answer: "once", closedBy: "rule", feedback: 'Allowed by the rule "write_file docs/**".' })).toMatchObject({
      outcome: "Allowed by rule “write_file docs/**”",
      via: null,
    });
    expect(closed({ status: "answered", answer: "always", closedBy: "rule", feedback: 'Allowed by "Allow always" (write_file docs/**).' })).toMatchObject({
      outcome: "Allowed by rule “write_file docs/**” (from Allow always)",
      tone: "allowed",
    });
  });

  it("a rule's other reasons are quoted, from a rule; no text at all still says a rule decided", () => {
    expect(closed({ status: "declined", closedBy: "rule", feedback: "Nobody can approve shell in this run (it runs without a person to ask), so it was denied." })).toMatchObject({
      outcome: "Nobody can approve shell in this run (it runs without a person to ask), so it was denied",
      via: "by a rule",
    });
    expect(closed({ status: "answered", answer: "once", closedBy: "rule" })).toMatchObject({ outcome: "Allowed by rule", via: null });
    expect(closed({ status: "declined", closedBy: "rule" })).toMatchObject({ outcome: "Denied by rule" });
  });

  it("a timed-out approval says how long nobody answered and what the fallback did", () => {
    expect(closed({ status: "timed_out", closedBy: "timeout" })).toMatchObject({ outcome: "No answer in 30 minutes, denied", tone: "timeout", via: null });
    expect(closed({ status: "timed_out", closedBy: "timeout" }, { ...shellSpec(), fallback: "allow" })).toMatchObject({ outcome: "No answer in 30 minutes, allowed" });
    expect(closed({ status: "declined", closedBy: "timeout" })).toMatchObject({ outcome: "No answer in 30 minutes, denied" });
    expect(closed({ status: "timed_out", closedBy: "timeout", expiresAt: null })).toMatchObject({ outcome: "No answer in time, denied" });
  });

  it("a cancelled approval says why", () => {
    expect(closed({ status: "cancelled", closedBy: "stop" })).toMatchObject({ outcome: "Cancelled", tone: "neutral", via: "when the run was stopped" });
    expect(closed({ status: "cancelled", closedBy: "restart" })).toMatchObject({ via: "at a server restart" });
    expect(closed({ status: "expired", closedBy: "run_end" })).toMatchObject({ outcome: "Expired", via: "when the run ended" });
  });

  it("a long subject is clipped to one line", () => {
    const audit = closed({ status: "answered", answer: "once", closedBy: "socket" }, shellSpec({ subject: `echo ${"x".repeat(300)}` }));
    expect(audit.subject!.length).toBe(120);
    expect(audit.subject!.endsWith("…")).toBe(true);
  });
});

describe("the audit line of a closed question", () => {
  const question = (over: Partial<Question>) =>
    auditOf({ ...approvalQuestion(), kind: "question", approval: null, prompt: "Which environment?", options: ["staging"], closedAt: "2025-01-01T12:05:00.000Z", ...over }, opts);

  it("keeps the prompt and the answer, and adds from where and when", () => {
    expect(question({ status: "answered", answer: "staging", closedBy: "socket" })).toMatchObject({
      tool: null,
      asked: "Which environment?",
      outcome: "Answered: staging",
      via: "in a browser tab",
      when: "12:05",
    });
    expect(question({ status: "answered", answer: "staging", closedBy: "push", closedByUser: "bob" })).toMatchObject({ outcome: "Answered: staging", via: "by bob, from a notification" });
    expect(question({ status: "declined", feedback: "not today", closedBy: "rest" })).toMatchObject({ outcome: "Declined: “not today”", tone: "denied", via: "over REST" });
    expect(question({ status: "timed_out", closedBy: "timeout", hasDefault: true, default: "12:30" })).toMatchObject({ outcome: "Timed out → default: 12:30", via: null });
  });
});

describe("audit pieces", () => {
  it("every surface and closer has words; a stored one a later version wrote reads as the outcome alone", () => {
    expect((["socket", "rest", "cli", "rule", "timeout", "stop", "run_end", "worker_exit", "restart"] as const).map(describeVia)).toEqual([
      "in a browser tab",
      "over REST",
      "from the CLI",
      "by a rule",
      null,
      "when the run was stopped",
      "when the run ended",
      "when its worker stopped",
      "at a server restart",
    ]);
    expect(describeVia(closedByOf("pager"))).toBeNull();
    expect(closedByOf("pager")).toBe("internal");
    expect(closedByOf("terminal")).toBe("terminal");
    expect(describeVia(null)).toBeNull();
  });

  it("durations read in the unit a person would say", () => {
    expect([20_000, 90_000, 30 * 60_000, 60 * 60_000, 90 * 60_000, 3 * 3_600_000].map(formatDuration)).toEqual(["20 seconds", "90 seconds", "30 minutes", "1 hour", "90 minutes", "3 hours"]);
  });

  it("the time alone today, with the date another day; nothing for no time", () => {
    expect(formatWhen("2025-01-01T09:07:00Z", opts)?.short).toBe("09:07");
    expect(formatWhen("2024-12-30T09:07:00Z", opts)?.short).toBe("30 Dec, 09:07");
    expect(formatWhen(null, opts)).toBeNull();
    expect(formatWhen("not a date", opts)).toBeNull();
  });

  it("reads the rule out of the server's text", () => {
    expect(ruleOf('Denied by the rule "shell rm*".')).toEqual({ rule: "shell rm*", always: false });
    expect(ruleOf('Allowed by "Allow always" (write_file docs/**).')).toEqual({ rule: "write_file docs/**", always: true });
    expect(ruleOf("Allowed: read_file is not a dangerous tool.")).toBeNull();
    expect(ruleOf(null)).toBeNull();
  });
});
