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
    if (body.kind !== "question") throw new Error("an ask without a kind is a question");
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

  it("refuses what cannot be a question: no options or the same one twice, NUL or control characters or lone surrogates in any text, a callbackUrl with a password", () => {
    expect(issues({ question: "Pick", options: [], from: "x" })).toEqual(["options: options needs at least one option (leave options out for a question answered in words)"]);
    expect(issues({ question: "Pick", options: ["a", " a "], from: "x" })).toEqual(["options: each option must be different"]);
    expect(issues({ question: "Bad\u0000", from: "x" })).toEqual(["question: the text holds a NUL character"]);
    expect(issues({ question: "Bad \ud800", from: "x" })).toEqual(["question: the text holds a lone surrogate (it is not valid Unicode)"]);
    expect(issues({ question: "Pick", options: ["a", "b\u001b[31m"], from: "x" })[0]).toMatch(/^options\.1: the text holds a control character/);
    expect(issues({ question: "Q", default: "\u0000", from: "x" })[0]).toMatch(/^default: /);
    expect(issues({ question: "Q", from: "c\u0007i" })[0]).toMatch(/^from: the text holds a control character/);
    expect(issues({ question: "Q", from: "x", session: "s\u0000" })[0]).toMatch(/^session: /);
    expect(issues({ question: "Two\nlines\tare fine", from: "x" })).toEqual([]);
    expect(issues({ question: "Q", from: "x", callbackUrl: "https://user:secret@hooks.example/p" })[0]).toMatch(/^callbackUrl: a callbackUrl may not carry a user or password/);
    expect(issues({ question: "Q", from: "x", callbackUrl: "https://hooks.example/p?who=a@b" })).toEqual([]);
    expect(issues({ kind: "approval", tool_name: "deploy", input: {}, preview: "x\u0000", from: "x" })[0]).toMatch(/^preview: /);
  });

  it("names who may answer and who it escalates to, and an approval of several people; refusing what cannot be", () => {
    const body = AskBodySchema.parse({
      question: "Deploy?",
      from: "ci",
      answerers: ["alice", "alice", "bob"],
      escalate: [
        { after: "10m", to: ["carol"] },
        { after: 3_600_000, to: ["dave"] },
      ],
    });
    expect(body).toMatchObject({
      kind: "question",
      answerers: ["alice", "bob"],
      escalate: [
        { after: 600_000, to: ["carol"] },
        { after: 3_600_000, to: ["dave"] },
      ],
    });
    // What the run is given parses again the same (the durations are milliseconds by then).
    const { session: _s, ...input } = body;
    expect(AskInputSchema.parse(input)).toEqual(input);
    const approval = AskBodySchema.parse({ kind: "approval", tool_name: "deploy", input: { env: "prod" }, from: "ci", approvals: { required: 2, from: ["alice", "bob", "carol"] } });
    expect(approval).toMatchObject({ kind: "approval", approvals: { required: 2, from: ["alice", "bob", "carol"], rejections: 1 } });
    expect(
      issues({
        question: "Q",
        from: "x",
        escalate: [
          { after: "1h", to: ["b"] },
          { after: "10m", to: ["c"] },
        ],
      })[0],
    ).toMatch(/^escalate: each step comes after/);
    expect(issues({ question: "Q", from: "x", escalate: [{ after: "soon", to: ["b"] }] })[0]).toMatch(/^escalate\.0\.after: /);
    expect(issues({ question: "Q", from: "x", answerers: [] })[0]).toMatch(/^answerers: /);
    expect(issues({ question: "Q", from: "x", answerers: ["not a name"] })[0]).toMatch(/^answerers\.0: /);
    expect(issues({ kind: "approval", tool_name: "t", input: {}, from: "x", approvals: { required: 3, from: ["a", "b"] } })[0]).toMatch(/^approvals\.from: from names fewer people than required/);
    expect(issues({ question: "Q", from: "x", approvals: { required: 2 } })[0]).toMatch(/approvals/);
  });

  it("a held read waits at most 60 seconds", () => {
    expect(QuestionReadQuerySchema.parse({ wait: "30" })).toEqual({ wait: 30 });
    expect(QuestionReadQuerySchema.parse({})).toEqual({});
    expect(QuestionReadQuerySchema.safeParse({ wait: "61" }).success).toBe(false);
    expect(QuestionReadQuerySchema.safeParse({ wait: "-1" }).success).toBe(false);
  });
});
