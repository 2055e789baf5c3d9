import { describe, expect, it } from "vitest";
import { AskBodySchema, AskInputSchema, QuestionReadQuerySchema, askSpecOf } from "./asks";
import { QuestionSpecSchema } from "./question";

const issues = (body: unknown) => {
  const parsed = AskBodySchema.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("an ask from outside", () => {
  it("becomes an ordinary question, shown as its asker's, timing out when it says", () => {
    const body = AskBodySchema.parse({ question: "Deploy?", options: ["yes", "no"], default: "no", timeout_seconds: 600, from: "ci", session: "deploys" });
    const spec = QuestionSpecSchema.parse(askSpecOf(body));
    expect(spec).toMatchObject({ kind: "question", prompt: "Deploy?", options: ["yes", "no"], multi: false, allowCustom: false, timeoutMs: 600_000, default: "no", owner: "ci" });
    expect(QuestionSpecSchema.parse(askSpecOf({ question: "Free text?", from: "ci" })).timeoutMs).toBeNull();
    // The run's input is the ask without its session.
    expect(AskInputSchema.safeParse({ question: "Deploy?", from: "ci", session: "x" }).success).toBe(false);
  });

  it("refuses what no question can be, naming the field: multiple without options, a form with options, a bad form, a sender of two lines, an unknown field", () => {
    expect(issues({ question: "Pick", multiple: true, from: "x" })).toEqual(["multi: multi needs options"]);
    expect(issues({ question: "Form", form: { type: "object", properties: {} }, options: ["a"], from: "x" })[0]).toMatch(/^form: a form has no options/);
    expect(issues({ question: "Form", form: { type: "array" }, from: "x" })[0]).toMatch(/^form: /);
    expect(issues({ question: "Who?", from: "a\nb" })).toEqual(["from: from is one line"]);
    expect(issues({ question: "Who?", from: "x", extra: 1 })[0]).toMatch(/extra/);
    expect(issues({ question: " ", from: "x" })[0]).toMatch(/^question: /);
    expect(issues({ question: "Q", from: "x", timeout_seconds: 0 })[0]).toMatch(/^timeout_seconds: /);
  });

  it("a held read waits at most 60 seconds", () => {
    expect(QuestionReadQuerySchema.parse({ wait: "30" })).toEqual({ wait: 30 });
    expect(QuestionReadQuerySchema.parse({})).toEqual({});
    expect(QuestionReadQuerySchema.safeParse({ wait: "61" }).success).toBe(false);
    expect(QuestionReadQuerySchema.safeParse({ wait: "-1" }).success).toBe(false);
  });
});
