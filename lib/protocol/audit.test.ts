import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import type { Question } from "./question";
import { askedLine, outcomeLine } from "./audit";

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
      'Allowed by "Allow always" (write_file docs/**).',
    );
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
    const form = { ...q({ kind: "question", approval: null }), replySchema, status: "answered" as const, answer: { nights: 4, currency: "EUR" }, closedBy: "terminal" };
    expect(outcomeLine(form)).toBe("Answered (Nights: 4 · Currency: Euro), in a terminal");
  });
});
