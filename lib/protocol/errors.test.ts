import { describe, expect, it } from "vitest";
import { z } from "zod";
import { clip, joinBounded } from "./bounded-text";
import { describeZodError, parseOrThrow } from "./errors";

const failure = (schema: z.ZodType, data: unknown) => {
  const parsed = schema.safeParse(data);
  if (parsed.success) throw new Error("expected a failure");
  return parsed.error;
};

describe("joinBounded", () => {
  it("lists the first few items and counts the rest", () => {
    expect(joinBounded(["a", "b"])).toBe("a; b");
    expect(joinBounded(["1", "2", "3", "4", "5", "6", "7"], { maxItems: 3 })).toBe("1; 2; 3; … and 4 more");
    expect(joinBounded(["1", "2"], { total: 10 })).toBe("1; 2; … and 8 more");
  });

  it("clips each item and the whole", () => {
    const long = "x".repeat(5_000);
    const text = joinBounded([long, long, long, long, long, long], { maxChars: 1_000 });
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text).toMatch(/… and \d+ more$/);
    expect(joinBounded([long], { maxChars: 50 }).length).toBeLessThanOrEqual(50);
    expect(clip("abcdef", 4)).toBe("abc…");
  });
});

describe("describeZodError", () => {
  it("keeps the message short for an object with 95,000 unknown keys, naming a few of them", () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`extra_key_${i}_${"z".repeat(20)}`, i]));
    const schema = z.strictObject({ value: z.string() });
    const data = keys(95_000);
    const message = describeZodError(failure(schema, { value: "x", ...data }));
    // Linear, not quadratic, in the number of keys: ten times the keys take well under 100 times as long
    // (the best of three, against a floor of a tenth of the keys measured in the same run).
    const fastest = (input: Record<string, unknown>) => {
      const error = failure(schema, { value: "x", ...input });
      return Math.min(...[0, 1, 2].map(() => ((started) => (describeZodError(error), performance.now() - started))(performance.now())));
    };
    const floor = fastest(keys(9_500));
    expect(fastest(data) / Math.max(floor, 0.05)).toBeLessThan(40);
    expect(message.length).toBeLessThanOrEqual(1_000);
    expect(message).toContain('"extra_key_0_');
    expect(message).toMatch(/, … and 9499\d more$/);
  });

  it("names one unknown key plainly", () => {
    expect(describeZodError(failure(z.strictObject({ a: z.string() }), { a: "x", valeu: 1 }))).toBe('Unrecognized key: "valeu"');
  });

  it("bounds many issues and long messages", () => {
    const schema = z.array(z.string().refine(() => false, "m".repeat(3_000)));
    const message = describeZodError(
      failure(
        schema,
        Array.from({ length: 1_000 }, () => "x"),
      ),
    );
    expect(message.length).toBeLessThanOrEqual(1_000);
    expect(message).toMatch(/… and \d+ more$/);
  });

  it("clips a long path", () => {
    const key = "k".repeat(5_000);
    const message = describeZodError(failure(z.record(z.string(), z.number()), { [key]: "x" }));
    expect(message.length).toBeLessThan(400);
  });
});

describe("parseOrThrow", () => {
  it("answers with the typed code a schema's check names, else bad_request", () => {
    const typed = z.unknown().superRefine((_v, ctx) => ctx.addIssue({ code: "custom", message: "too deep", params: { errorCode: "reply_too_deep" } }));
    expect(() => parseOrThrow(z.object({ value: typed }), { value: 1 })).toThrow(expect.objectContaining({ code: "reply_too_deep", status: 422 }));
    expect(() => parseOrThrow(z.object({ value: z.string() }), { value: 1 })).toThrow(expect.objectContaining({ code: "bad_request" }));
    const unknownCode = z.unknown().superRefine((_v, ctx) => ctx.addIssue({ code: "custom", message: "x", params: { errorCode: "no_such_code" } }));
    expect(() => parseOrThrow(unknownCode, 1)).toThrow(expect.objectContaining({ code: "bad_request" }));
  });
});
