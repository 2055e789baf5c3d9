import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../protocol/policy";
import type { Question } from "../../protocol/question";
import { checkReplySchema } from "./reply-schema";
import { validateReply } from "./validate-reply";

const trip = {
  type: "object",
  properties: {
    destination: { type: "string", title: "Destination", minLength: 3 },
    nights: { type: "integer", title: "Nights", minimum: 1, maximum: 14 },
    currency: { type: "string", title: "Currency", enum: ["EUR", "USD", "GBP"] },
    seat: {
      type: "string",
      oneOf: [
        { const: "aisle", title: "Aisle" },
        { const: "window", title: "Window" },
      ],
    },
    email: { type: "string", format: "email" },
    when: { type: "string", format: "date" },
  },
  required: ["destination", "nights", "currency"],
  additionalProperties: false,
};

const question = (replySchema: Record<string, unknown>) => ({ kind: "question", replySchema, options: [], multi: false, allowCustom: false }) as unknown as Question;

const failure = (work: () => unknown) => {
  try {
    work();
  } catch (err) {
    return err as { code: string; message: string; details?: unknown };
  }
  throw new Error("no error");
};

describe("a reply to a form", () => {
  it("the form's schema (formats, oneOf, enumNames) is a valid reply schema; an unknown format is not", () => {
    expect(() => checkReplySchema({ ...trip, properties: { ...trip.properties, c: { enum: ["a"], enumNames: ["A"] } } })).not.toThrow();
    expect(failure(() => checkReplySchema({ type: "object", properties: { p: { type: "string", format: "phone" } } }))).toMatchObject({
      code: "invalid_schema",
      message: expect.stringContaining("supported formats are email, uri, date, date-time"),
    });
  });

  it("is stored when every field fits", () => {
    const value = { destination: "Lisbon", nights: 3, currency: "EUR", seat: "window", email: "ann@example.com", when: "2026-06-01" };
    expect(validateReply(question(trip), DEFAULT_POLICY, value)).toEqual(value);
  });

  it("is refused with each wrong field's error in details.fields, in words a person reads", () => {
    const err = failure(() => validateReply(question(trip), DEFAULT_POLICY, { destination: "Li", nights: 20, currency: "JPY", email: "ann@", seat: "middle" }));
    expect(err.code).toBe("reply_schema_mismatch");
    expect(err.details).toEqual({
      fields: {
        destination: "at least 3 characters",
        nights: "a whole number from 1 to 14",
        currency: "one of EUR, USD, GBP",
        seat: "one of Aisle, Window",
        email: "an email address",
      },
    });
    expect(err.message).toContain("Nights: a whole number from 1 to 14");
  });

  it("the JSON Schema check agrees on formats (a reply that skips the form's check is refused too)", () => {
    const schema = { type: "object", properties: { email: { type: "string", format: "email" }, when: { type: "string", format: "date" } } };
    expect(validateReply(question(schema), DEFAULT_POLICY, { email: "a@b.co", when: "2026-01-31" })).toBeTruthy();
    expect(failure(() => validateReply(question(schema), DEFAULT_POLICY, { when: "2026-02-31" })).details).toEqual({ fields: { when: "a date" } });
  });

  it("a schema that is no flat form is checked by JSON Schema alone, without details", () => {
    const list = { type: "array", items: { type: "integer" } };
    const err = failure(() => validateReply(question(list), DEFAULT_POLICY, ["a"]));
    expect(err.code).toBe("reply_schema_mismatch");
    expect(err.details).toBeUndefined();
  });
});

describe("every reply's text", () => {
  const choice = { kind: "question", replySchema: null, options: ["a", "b"], multi: false, allowCustom: true } as unknown as Question;
  const multi = { ...choice, multi: true } as Question;

  it("refuses a NUL, a control character or a lone surrogate anywhere in the answer (422 invalid_answer), on every kind", () => {
    expect(failure(() => validateReply(choice, DEFAULT_POLICY, "a\u0000"))).toMatchObject({ code: "invalid_answer", message: "The answer holds a NUL character." });
    expect(failure(() => validateReply(multi, DEFAULT_POLICY, ["a", "\ud800"]))).toMatchObject({ code: "invalid_answer", message: expect.stringContaining("/1 holds a lone surrogate") });
    expect(failure(() => validateReply(question(trip), DEFAULT_POLICY, { destination: "Rome\u001b", nights: 2, currency: "EUR" }))).toMatchObject({ code: "invalid_answer" });
    expect(validateReply(choice, DEFAULT_POLICY, "two\nlines")).toBe("two\nlines");
  });

  it("a single choice is answered with text, a multi-choice with a list", () => {
    expect(failure(() => validateReply(choice, DEFAULT_POLICY, ["a"]))).toMatchObject({ code: "invalid_answer" });
    expect(failure(() => validateReply(multi, DEFAULT_POLICY, "a"))).toMatchObject({ code: "invalid_answer" });
    expect(validateReply(multi, DEFAULT_POLICY, ["a"])).toEqual(["a"]);
  });
});
