import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { promptBound } from "../../../tests/helpers/timing";
import { checkReplySchema, validateAgainstSchema } from "./reply-schema";

const codeOf = (work: () => unknown): string => {
  try {
    work();
    return "no error";
  } catch (err) {
    return (err as { code?: string }).code ?? (err as Error).message;
  }
};
const messageOf = (work: () => unknown): string => {
  try {
    work();
    return "";
  } catch (err) {
    return (err as Error).message;
  }
};

const count = { type: "object", properties: { count: { type: "integer", minimum: 1 } }, required: ["count"], additionalProperties: false };

describe("reply schemas name a draft the validator knows offline", () => {
  for (const $schema of [
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
  ]) {
    it(`accepts ${$schema} and validates with it`, () => {
      const schema = { $schema, ...count };
      expect(codeOf(() => checkReplySchema(schema))).toBe("no error");
      expect(codeOf(() => validateAgainstSchema(schema, { count: 2 }))).toBe("no error");
      expect(codeOf(() => validateAgainstSchema(schema, { count: 0 }))).toBe("reply_schema_mismatch");
    });
  }

  it("checks a schema by the named draft's meta-schema, inside the supported subset", () => {
    // Keywords outside the supported subset stay refused whatever the draft.
    expect(codeOf(() => checkReplySchema({ $schema: "https://json-schema.org/draft/2020-12/schema", prefixItems: [] }))).toBe("invalid_schema");
    // A draft-07 tuple is not a 2020-12 schema: refused when compiled, with invalid_schema.
    expect(codeOf(() => checkReplySchema({ $schema: "http://json-schema.org/draft-07/schema#", items: [{ type: "string" }] }))).toBe("no error");
    expect(codeOf(() => checkReplySchema({ $schema: "https://json-schema.org/draft/2020-12/schema", items: [{ type: "string" }] }))).toBe("invalid_schema");
  });

  for (const $schema of ["http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-03/schema#", "https://example.com/my-meta-schema", "https://json-schema.org/draft/2021-01/schema"]) {
    it(`refuses ${$schema} with invalid_schema naming the supported drafts`, () => {
      const message = messageOf(() => checkReplySchema({ $schema, type: "string" }));
      expect(codeOf(() => checkReplySchema({ $schema, type: "string" }))).toBe("invalid_schema");
      for (const name of ["draft-06", "draft-07", "2019-09", "2020-12"]) expect(message).toContain(name);
    });
  }

  it("refuses a $schema that is not a string, or one below the top", () => {
    expect(codeOf(() => checkReplySchema({ $schema: 7, type: "string" }))).toBe("invalid_schema");
    const nested = { type: "object", properties: { a: { $schema: "http://json-schema.org/draft-07/schema#", type: "string" } } };
    expect(codeOf(() => checkReplySchema(nested))).toBe("invalid_schema");
  });

  it("still refuses remote refs under any draft", () => {
    for (const $schema of ["http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"]) {
      expect(codeOf(() => checkReplySchema({ $schema, properties: { a: { $ref: "https://example.com/a.json" } } }))).toBe("schema_remote_ref");
    }
  });
});

describe("schema mismatch messages are bounded", () => {
  it("a 1 MB reply with 95,000 extra keys gets a short message, quickly", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
    checkReplySchema(schema);
    const reply = Object.fromEntries(Array.from({ length: 95_000 }, (_, i) => [`key_${i}`, "v"]));
    const message = messageOf(() => validateAgainstSchema(schema, reply));
    // Quickly: the message costs little beside the validator's own work, which lists all 95,000 extra
    // keys (the floor: Ajv alone on the same reply, with the same options, measured in the same run,
    // each the best of five taken in turn).
    const ajv = new Ajv({ allErrors: true, strict: false }).compile(schema);
    const times = { ours: [] as number[], ajv: [] as number[] };
    for (let i = 0; i < 5; i++) {
      let started = performance.now();
      ajv(reply);
      times.ajv.push(performance.now() - started);
      started = performance.now();
      messageOf(() => validateAgainstSchema(schema, reply));
      times.ours.push(performance.now() - started);
    }
    const [ours, floor] = [Math.min(...times.ours), Math.min(...times.ajv)];
    expect(ours, `the message took ${ours.toFixed(1)} ms, the validator alone ${floor.toFixed(1)} ms`).toBeLessThan(promptBound(floor));
    expect(message.length).toBeLessThanOrEqual(1_100);
    expect(message).toContain('("key_0")');
    expect(message).toMatch(/… and 9499\d more\.$/);
  });

  it("clips a long instance path", () => {
    const key = "k".repeat(5_000);
    const schema = { type: "object", additionalProperties: { type: "integer" } };
    checkReplySchema(schema);
    expect(messageOf(() => validateAgainstSchema(schema, { [key]: "x" })).length).toBeLessThan(300);
  });
});
