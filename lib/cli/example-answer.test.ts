import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../protocol/policy";
import { validateReply } from "../server/questions/validate-reply";
import { aQuestion, anApproval, tripForm } from "../../tests/helpers/questions";
import { answerCommand } from "./format";
import { exampleAnswer, formExample, otherAnswers } from "./example-answer";

const everyField = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 12, maxLength: 20 },
    email: { type: "string", format: "email" },
    day: { type: "string", format: "date" },
    seats: { type: "integer", minimum: 2, maximum: 9 },
    score: { type: "number", maximum: -1 },
    toppings: { type: "array", items: { enum: ["ham", "olives", "cheese"] }, minItems: 2 },
    size: {
      type: "string",
      oneOf: [
        { const: "s", title: "Small" },
        { const: "l", title: "Large" },
      ],
    },
    agree: { type: "boolean" },
  },
  required: ["name", "email", "day", "seats", "toppings", "size", "agree"],
};

describe("the answer `parley pending` prints for each question", () => {
  const kinds = {
    approval: anApproval(),
    "approval without Allow always": anApproval({ always: [] }),
    confirm: aQuestion({ kind: "confirm", options: [] }),
    choice: aQuestion(),
    "several choices": aQuestion({ multi: true }),
    "free text": aQuestion({ options: [] }),
    "a form": aQuestion({ options: [], replySchema: tripForm }),
    "a form of every field kind": aQuestion({ options: [], replySchema: everyField }),
  };

  it.each(Object.entries(kinds))("%s: the example is an answer the server accepts", (_kind, question) => {
    const value: unknown = JSON.parse(exampleAnswer(question));
    expect(() => validateReply(question, DEFAULT_POLICY, value)).not.toThrow();
    expect(answerCommand(question)).toContain(`--value-json '${exampleAnswer(question)}'`);
  });

  it("an approval is allowed once (not a quoted answer), with what else it takes said beside it", () => {
    expect(exampleAnswer(anApproval())).toBe('"once"');
    expect(otherAnswers(anApproval())).toBe('"always" to allow it from now on; decline rejects it');
    expect(otherAnswers(aQuestion({ kind: "confirm", options: [] }))).toBe("true for Yes, false for No");
  });

  it("a form's example fills every field within its checks", () => {
    expect(formExample(everyField)).toEqual({ name: "namexxxxxxxx", email: "name@example.com", day: "2026-01-31", seats: 2, score: -1, toppings: ["ham", "olives"], size: "s", agree: false });
    expect(formExample({ type: "array" })).toBeNull();
  });
});
