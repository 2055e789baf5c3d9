import fc from "fast-check";

/**
 * Reply values a free-text question (the sentinel's: no options, no reply schema) must refuse
 * although the reply body's schema takes any JSON: not text, blank, a list of other than one
 * string, longer than an answer may be (10,000 characters).
 */
export const refusedByTextQuestionArb: fc.Arbitrary<{ what: string; value: unknown }> = fc.oneof(
  fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map((value) => ({ what: "a number", value })),
  fc.constant({ what: "null", value: null }),
  fc.boolean().map((value) => ({ what: "a boolean", value })),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map((value) => ({ what: "an object", value })),
  fc.constant({ what: "an empty list", value: [] }),
  fc.array(fc.string({ minLength: 1, maxLength: 10 }), { minLength: 2, maxLength: 5 }).map((value) => ({ what: "a list of several strings", value })),
  fc
    .array(
      fc.jsonValue({ maxDepth: 1 }).filter((v) => typeof v !== "string"),
      { minLength: 1, maxLength: 3 },
    )
    .map((value) => ({ what: "a list of non-strings", value })),
  fc.constantFrom("", " ", "\t\n", "\u00a0", "\ufeff", "\u3000 ").map((value) => ({ what: "blank text", value })),
  fc.integer({ min: 10_001, max: 60_000 }).map((n) => ({ what: `text of ${n} characters`, value: "a".repeat(n) })),
  fc.integer({ min: 70_000, max: 1_000_000 }).map((n) => ({ what: `text of ${n} bytes, above the run's reply limit`, value: "b".repeat(n) })),
);
