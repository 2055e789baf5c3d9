import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, checkPlainJson, findPlainJsonProblem, nestingDepth } from "./plain-json";

/** A value nested `depth` levels deep: arrays, or objects under key `k`. */
function nested(depth: number, kind: "array" | "object" = "array"): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < depth; i++) value = kind === "array" ? [value] : { k: value };
  return value;
}

/** The implementation canonicalJson replaced (recursive): the text must stay the same, so stored digests stay valid. */
const recursiveCanonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );

const limits = { maxBytes: 1_000_000, maxDepth: 32 };
const codeOf = (work: () => unknown) => {
  try {
    work();
    return "no error";
  } catch (err) {
    return (err as { code?: string }).code ?? (err as Error).message;
  }
};

describe("checkPlainJson", () => {
  it("refuses a value nested thousands deep with reply_too_deep, not a stack overflow", () => {
    for (const depth of [33, 2_200, 100_000]) {
      expect(codeOf(() => checkPlainJson(nested(depth), limits))).toBe("reply_too_deep");
      expect(codeOf(() => checkPlainJson(nested(depth, "object"), limits))).toBe("reply_too_deep");
    }
  });

  it("takes exactly maxDepth levels and refuses one more", () => {
    expect(codeOf(() => checkPlainJson(nested(32), limits))).toBe("no error");
    expect(codeOf(() => checkPlainJson(nested(33), limits))).toBe("reply_too_deep");
  });

  it("names the subject in the code: input_* for a run's input", () => {
    expect(codeOf(() => checkPlainJson(nested(5_000), { ...limits, subject: "input" }))).toBe("input_too_deep");
    expect(codeOf(() => checkPlainJson("x".repeat(100), { maxBytes: 10, maxDepth: 4, subject: "input" }))).toBe("input_too_large");
    expect(codeOf(() => checkPlainJson({ a: new Date() }, { ...limits, subject: "input" }))).toBe("input_not_json");
  });

  it("refuses what is not plain JSON, saying where", () => {
    expect(findPlainJsonProblem({ a: [1, Number.NaN] }, limits)).toEqual({ code: "reply_not_json", message: expect.stringContaining("value.a[1]") });
    expect(findPlainJsonProblem({ f: () => 1 }, limits)?.code).toBe("reply_not_json");
    expect(findPlainJsonProblem(new Map(), limits)?.code).toBe("reply_not_json");
    expect(findPlainJsonProblem(undefined, limits)?.code).toBe("reply_not_json");
    expect(findPlainJsonProblem(Object.create(null) as object, limits)).toBeNull();
  });

  it("counts UTF-8 bytes of the JSON text", () => {
    expect(findPlainJsonProblem("é".repeat(5), { maxBytes: 12, maxDepth: 1 })).toBeNull(); // "…" = 2 + 10 bytes
    expect(findPlainJsonProblem("é".repeat(6), { maxBytes: 12, maxDepth: 1 })?.code).toBe("reply_too_large");
  });

  it("keeps the path in its message short", () => {
    const key = "k".repeat(10_000);
    const problem = findPlainJsonProblem({ [key]: Number.POSITIVE_INFINITY }, limits)!;
    expect(problem.message.length).toBeLessThan(300);
  });

  it("stops at a cycle as too deep", () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(findPlainJsonProblem(a, limits)?.code).toBe("reply_too_deep");
  });
});

describe("nestingDepth", () => {
  it("counts containers and stops soon after the limit", () => {
    expect(nestingDepth("x", 10)).toBe(0);
    expect(nestingDepth([], 10)).toBe(1);
    expect(nestingDepth({ a: [{}] }, 10)).toBe(3);
    expect(nestingDepth(nested(1_000_000), 10)).toBe(11);
  });
});

describe("canonicalJson", () => {
  it("does not overflow on deep values", () => {
    expect(canonicalJson(nested(100_000))).toHaveLength(100_000 * 2 + 6);
    expect(canonicalJson(nested(20_000, "object")).startsWith('{"k":{"k":')).toBe(true);
  });

  it("sorts keys, as before: integer-like keys first in numeric order, then the rest by code unit", () => {
    const value = { b: 1, a: { z: [3, { y: 1, x: 2 }], "10": 0, "2": 0 }, B: null };
    expect(canonicalJson(value)).toBe('{"B":null,"a":{"2":0,"10":0,"z":[3,{"x":2,"y":1}]},"b":1}');
    expect(canonicalJson(value)).toBe(recursiveCanonicalJson(value));
  });

  it("writes what JSON.stringify writes for the odd cases: undefined, functions, non-finite numbers, toJSON", () => {
    const odd = {
      u: undefined,
      f: () => 1,
      list: [undefined, () => 1, Number.NaN, -0, Number.POSITIVE_INFINITY],
      when: new Date(0),
      custom: { toJSON: (key: string) => ({ key, z: 1, a: 2 }) },
      boxed: [new Number(1), new String("ab")],
      __proto__: 1,
    };
    expect(canonicalJson(odd)).toBe(recursiveCanonicalJson(odd));
    expect(canonicalJson(undefined)).toBe(recursiveCanonicalJson(undefined));
    expect(canonicalJson("é\u2028\ud800")).toBe(recursiveCanonicalJson("é\u2028\ud800"));
  });

  it("gives the same text as the recursive implementation for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(recursiveCanonicalJson(value));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true, withDate: true }), (value) => {
        expect(canonicalJson(value)).toBe(recursiveCanonicalJson(value));
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a cycle with a TypeError instead of looping", () => {
    const a: unknown[] = [];
    a.push(a);
    expect(() => canonicalJson(a)).toThrow(TypeError);
    const o: Record<string, unknown> = {};
    o.o = { o };
    expect(() => canonicalJson(o)).toThrow(TypeError);
  });

  it("writes a value shared twice (not a cycle) twice", () => {
    const shared = { a: 1 };
    expect(canonicalJson([shared, { s: shared }])).toBe('[{"a":1},{"s":{"a":1}}]');
  });
});
