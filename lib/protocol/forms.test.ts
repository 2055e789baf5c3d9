import { describe, expect, it } from "vitest";
import {
  describeFormAnswer,
  describeFormErrors,
  draftToContent,
  fieldErrorsOf,
  FORMAT_CHECKS,
  formFields,
  initialDraft,
  isFlatForm,
  parseFormSchema,
  validateField,
  validateForm,
  type FormSchema,
} from "./forms";

const trip = {
  type: "object",
  title: "Book a trip",
  properties: {
    destination: { type: "string", title: "Destination", minLength: 3, maxLength: 60 },
    nights: { type: "integer", title: "Nights", minimum: 1, maximum: 14, default: 3 },
    budget: { type: "number", minimum: 0 },
    currency: { type: "string", title: "Currency", enum: ["EUR", "USD", "GBP"], enumNames: ["Euro", "US dollar", "Pound sterling"] },
    seat: {
      type: "string",
      oneOf: [
        { const: "aisle", title: "Aisle" },
        { const: "window", title: "Window" },
      ],
    },
    email: { type: "string", format: "email" },
    website: { type: "string", format: "uri" },
    departure: { type: "string", format: "date" },
    pickup: { type: "string", format: "date-time" },
    insurance: { type: "boolean", title: "Travel insurance", default: false },
  },
  required: ["destination", "nights", "currency", "email"],
} as const;

const schema = trip as unknown as FormSchema;
const field = (name: string) => formFields(schema).find((f) => f.name === name)!;

describe("what is a form", () => {
  it("takes a flat object of every field kind, in the schema's order, with labels and choices", () => {
    expect(isFlatForm(trip)).toBe(true);
    const fields = formFields(schema);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ["destination", "text", true],
      ["nights", "integer", true],
      ["budget", "number", false],
      ["currency", "choice", true],
      ["seat", "choice", false],
      ["email", "text", true],
      ["website", "text", false],
      ["departure", "text", false],
      ["pickup", "text", false],
      ["insurance", "boolean", false],
    ]);
    expect(field("currency").choices).toEqual([
      { value: "EUR", title: "Euro" },
      { value: "USD", title: "US dollar" },
      { value: "GBP", title: "Pound sterling" },
    ]);
    expect(field("seat").choices[1]).toEqual({ value: "window", title: "Window" });
    expect(field("budget").label).toBe("Budget");
  });

  it("takes an enum without a type (the /budget demo's reply schema)", () => {
    expect(
      isFlatForm({
        type: "object",
        properties: { amount: { type: "integer", minimum: 1 }, currency: { enum: ["EUR", "USD"] } },
        required: ["amount", "currency"],
        additionalProperties: false,
      }),
    ).toBe(true);
  });

  it.each([
    ["a list", { type: "array", items: { type: "string" } }],
    ["a nested object", { type: "object", properties: { a: { type: "object", properties: {} } } }],
    ["a pattern", { type: "object", properties: { a: { type: "string", pattern: "^x" } } }],
    ["no fields", { type: "object", properties: {} }],
    ["a field without a type", { type: "object", properties: { a: {} } }],
    ["a number enum", { type: "object", properties: { a: { type: "number", enum: ["1"] } } }],
    ["an unknown format", { type: "object", properties: { a: { type: "string", format: "phone" } } }],
    ["a required name that is no field", { type: "object", properties: { a: { type: "string" } }, required: ["b"] }],
    ["a $ref", { type: "object", properties: { a: { $ref: "#/$defs/a" } } }],
    ["a field named __proto__", JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')],
  ])("is not %s", (_, candidate) => {
    expect(isFlatForm(candidate)).toBe(false);
  });

  it.each([
    [{ type: "object", properties: { n: { type: "integer", minimum: 5, maximum: 1 } } }, "properties.n: minimum is above maximum"],
    [{ type: "object", properties: { n: { type: "boolean", minLength: 1 } } }, "properties.n: minLength does not apply to a boolean field"],
    [{ type: "object", properties: { c: { enum: ["a", "b"], enumNames: ["A"] } } }, "properties.c: enumNames must name every enum value, in order"],
    [{ type: "object", properties: { n: { type: "integer", minimum: 1, maximum: 3, default: 7 } } }, "properties.n: its default is not valid: it must be a whole number from 1 to 3"],
    [{ type: "object", properties: { a: { type: "string" } }, required: ["b"] }, 'required: "b" is required but is not a field'],
    [{ type: "array" }, 'type: a form is an object schema: type "object"'],
  ])("says what is wrong with %j", (candidate, message) => {
    const parsed = parseFormSchema(candidate);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toContain(message);
  });
});

describe("each field's error, as a person reads it", () => {
  it.each([
    ["destination", undefined, "required"],
    ["destination", "", "required"],
    ["destination", "Ab", "3 to 60 characters"],
    ["destination", "x".repeat(61), "at most 60 characters"],
    ["destination", "Lisbon", null],
    ["nights", 0, "a whole number from 1 to 14"],
    ["nights", 15, "a whole number from 1 to 14"],
    ["nights", 2.5, "a whole number from 1 to 14"],
    ["nights", "3", "a whole number from 1 to 14"],
    ["nights", 14, null],
    ["budget", -1, "a number of at least 0"],
    ["budget", 99.5, null],
    ["budget", undefined, null],
    ["currency", "JPY", "one of Euro, US dollar, Pound sterling"],
    ["currency", "EUR", null],
    ["seat", "middle", "one of Aisle, Window"],
    ["email", "ann@", "an email address"],
    ["email", "ann@example.com", null],
    ["website", "example.com", "a web address such as https://example.com"],
    ["website", "https://example.com/a?b=c", null],
    ["departure", "2026-02-30", "a date"],
    ["departure", "2026-02-28", null],
    ["pickup", "2026-02-28 10:00", "a date and time"],
    ["pickup", "2026-02-28T10:00:00Z", null],
    ["insurance", "yes", "yes or no"],
    ["insurance", false, null],
  ])("%s = %j: %s", (name, value, error) => {
    expect(validateField(field(name), value)).toBe(error);
  });

  it("names a currency enum without titles by its values", () => {
    const [currency] = formFields({ type: "object", properties: { c: { type: "string", enum: ["EUR", "USD", "GBP"] } } });
    expect(validateField(currency!, "JPY")).toBe("one of EUR, USD, GBP");
    const [code] = formFields({ type: "object", properties: { c: { type: "string", minLength: 3 } } });
    expect(validateField(code!, "ab")).toBe("at least 3 characters");
  });
});

describe("a whole reply", () => {
  it("accepts a valid reply and leaves out empty optional fields", () => {
    const result = validateForm(schema, { destination: "Lisbon", nights: 3, currency: "EUR", email: "ann@example.com", insurance: true, website: "" });
    expect(result).toEqual({ ok: true, content: { destination: "Lisbon", nights: 3, currency: "EUR", email: "ann@example.com", insurance: true } });
  });

  it("gives every wrong field its own error", () => {
    const result = validateForm(schema, { destination: "Li", nights: 20, currency: "JPY" });
    expect(result).toEqual({
      ok: false,
      errors: { destination: "3 to 60 characters", nights: "a whole number from 1 to 14", currency: "one of Euro, US dollar, Pound sterling", email: "required" },
    });
    expect(describeFormErrors(schema, !result.ok ? result.errors : {})).toBe(
      "Destination: 3 to 60 characters; Nights: a whole number from 1 to 14; Currency: one of Euro, US dollar, Pound sterling; Email: required",
    );
  });

  it("refuses unknown keys only when the schema closes the form, and anything that is not an object", () => {
    expect(validateForm({ ...schema, additionalProperties: false }, { destination: "Lisbon", nights: 2, currency: "EUR", email: "a@b.co", x: 1 })).toEqual({
      ok: false,
      errors: { x: "not a field of this form" },
    });
    expect(validateForm(schema, { destination: "Lisbon", nights: 2, currency: "EUR", email: "a@b.co", x: 1 }).ok).toBe(true);
    expect(validateForm(schema, [1]).ok).toBe(false);
    expect(validateForm(schema, "Lisbon").ok).toBe(false);
  });
});

describe("an answer as a person reads it", () => {
  it("names each field by its label and each choice by its title", () => {
    expect(describeFormAnswer(schema, { destination: "Lisbon", nights: 4, currency: "GBP", insurance: true })).toBe(
      "Destination: Lisbon · Nights: 4 · Currency: Pound sterling · Travel insurance: Yes",
    );
    expect(describeFormAnswer(schema, "nope")).toBe("");
  });
});

describe("the browser's draft", () => {
  it("starts from the defaults: an unticked box, empty text", () => {
    expect(initialDraft(schema)).toMatchObject({ destination: "", nights: "3", currency: "", insurance: false });
  });

  it("turns typed text into the reply: numbers as numbers, trimmed text, a local time in UTC", () => {
    const draft = { ...initialDraft(schema), destination: "  Lisbon ", nights: "4", budget: "120.5", currency: "GBP", email: "ann@example.com", insurance: true, pickup: "2026-03-01T10:30" };
    const result = draftToContent(schema, draft);
    expect(result.ok).toBe(true);
    expect(result.ok && result.content).toMatchObject({ destination: "Lisbon", nights: 4, budget: 120.5, currency: "GBP", insurance: true });
    expect(result.ok && FORMAT_CHECKS["date-time"](String(result.content.pickup))).toBe(true);
  });

  it("keeps text that is no number, so its error says what is allowed", () => {
    const result = draftToContent(schema, { ...initialDraft(schema), destination: "Lisbon", nights: "three", currency: "EUR", email: "x" });
    expect(result).toEqual({ ok: false, errors: { nights: "a whole number from 1 to 14", email: "an email address" } });
  });

  it("reads the server's per-field errors from a refusal's details", () => {
    expect(fieldErrorsOf({ fields: { nights: "a whole number from 1 to 14", bad: 3 } })).toEqual({ nights: "a whole number from 1 to 14" });
    expect(fieldErrorsOf(undefined)).toBeNull();
    expect(fieldErrorsOf({ fields: [] })).toBeNull();
  });
});

describe("multi-select fields (MCP elicitation's arrays of enums)", () => {
  const form = {
    type: "object",
    properties: {
      regions: { type: "array", title: "Regions", items: { type: "string", enum: ["eu", "us", "ap"] }, minItems: 1, maxItems: 2, default: ["eu"] },
      extras: {
        type: "array",
        items: {
          anyOf: [
            { const: "logs", title: "Logs" },
            { const: "metrics", title: "Metrics" },
          ],
        },
      },
    },
    required: ["regions"],
  };
  const schema = parseFormSchema(form);
  if (!schema.ok) throw new Error(schema.error);
  const [regions, extras] = formFields(schema.schema);

  it("reads untitled (items.enum) and titled (items.anyOf) choices, the item bounds and a list default", () => {
    expect(regions).toMatchObject({
      kind: "multi",
      label: "Regions",
      minItems: 1,
      maxItems: 2,
      default: ["eu"],
      choices: [
        { value: "eu", title: "eu" },
        { value: "us", title: "us" },
        { value: "ap", title: "ap" },
      ],
    });
    expect(extras).toMatchObject({
      kind: "multi",
      label: "Extras",
      minItems: null,
      choices: [
        { value: "logs", title: "Logs" },
        { value: "metrics", title: "Metrics" },
      ],
    });
    expect(initialDraft(schema.schema)).toEqual({ regions: ["eu"], extras: [] });
  });

  it("checks a reply's list: known choices, each once, within minItems and maxItems", () => {
    expect(validateForm(schema.schema, { regions: ["eu", "ap"], extras: [] })).toEqual({ ok: true, content: { regions: ["eu", "ap"], extras: [] } });
    expect(validateForm(schema.schema, { regions: [] })).toEqual({ ok: false, errors: { regions: "at least 1 choice" } });
    expect(validateForm(schema.schema, { regions: ["eu", "us", "ap"] })).toEqual({ ok: false, errors: { regions: "at most 2 choices" } });
    expect(validateForm(schema.schema, { regions: ["eu", "eu"] }).ok).toBe(false);
    expect(validateForm(schema.schema, { regions: ["mars"] })).toEqual({ ok: false, errors: { regions: "any of eu, us, ap" } });
    expect(validateForm(schema.schema, { regions: "eu" }).ok).toBe(false);
    expect(validateForm(schema.schema, {})).toEqual({ ok: false, errors: { regions: "required" } });
  });

  it("turns ticked boxes (in the choices' order) or comma-separated values or titles (the terminal) into the list", () => {
    expect(draftToContent(schema.schema, { regions: ["ap", "eu"], extras: [] })).toEqual({ ok: true, content: { regions: ["eu", "ap"], extras: [] } });
    expect(draftToContent(schema.schema, { regions: "us, eu", extras: "metrics,Logs" })).toEqual({ ok: true, content: { regions: ["eu", "us"], extras: ["logs", "metrics"] } });
    expect(draftToContent(schema.schema, { regions: "eu, moon", extras: "" })).toEqual({ ok: false, errors: { regions: "any of eu, us, ap" } });
    expect(describeFormAnswer(schema.schema, { regions: ["eu", "us"], extras: ["metrics"] })).toBe("Regions: eu, us · Extras: Metrics");
  });

  it("refuses a multi-select without its choices, with choices beside items, bounds the wrong way round or a default that does not fit", () => {
    const bad = (field: Record<string, unknown>) => parseFormSchema({ type: "object", properties: { f: field } });
    expect(bad({ type: "array" })).toMatchObject({ ok: false, error: expect.stringContaining("a multi-select needs items with enum or anyOf") });
    expect(bad({ type: "array", items: { enum: ["a"], anyOf: [{ const: "a" }] } }).ok).toBe(false);
    expect(bad({ type: "array", enum: ["a"], items: { enum: ["a"] } })).toMatchObject({ ok: false, error: expect.stringContaining("lists its choices in items") });
    expect(bad({ type: "array", items: { enum: ["a", "b"] }, minItems: 2, maxItems: 1 })).toMatchObject({ ok: false, error: expect.stringContaining("minItems is above maxItems") });
    expect(bad({ type: "array", items: { enum: ["a", "b"] }, default: ["c"] })).toMatchObject({ ok: false, error: expect.stringContaining("its default is not valid") });
    expect(bad({ type: "string", minItems: 1 })).toMatchObject({ ok: false, error: expect.stringContaining("minItems does not apply to a text field") });
    expect(bad({ type: "string", default: ["a"] }).ok).toBe(false);
  });
});
