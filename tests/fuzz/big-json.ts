import fc from "fast-check";

/**
 * JSON that is large or deep, built without recursion (a recursive builder would overflow where
 * the server must not), as text: REST bodies and raw Socket.IO frames carry it as written.
 */

/** The REST body limit (MAX_BODY_BYTES): sizes are picked around it. */
export const BODY_LIMIT = 2 * 1024 * 1024;

export type DeepShape = "array" | "object" | "mixed";

/** JSON text nesting `depth` levels: `[[[…0…]]]`, `{"a":{"a":…}}` or both in turn. */
export function deepJsonText(depth: number, shape: DeepShape): string {
  if (shape === "array") return "[".repeat(depth) + "0" + "]".repeat(depth);
  if (shape === "object") return '{"a":'.repeat(depth) + "0" + "}".repeat(depth);
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    open.push(i % 2 ? '{"a":' : "[");
    close.push(i % 2 ? "}" : "]");
  }
  return open.join("") + "0" + close.reverse().join("");
}

/** 100 to 5,000 levels, the low end more often. */
export const depthArb = fc.oneof(fc.integer({ min: 33, max: 70 }), fc.integer({ min: 100, max: 600 }), fc.integer({ min: 600, max: 5_000 }));
export const deepShapeArb = fc.constantFrom<DeepShape>("array", "object", "mixed");

/**
 * Sizes of a huge string (characters of one byte): below a policy's reply limit, at the 1 MiB
 * ceiling, just below and above the 2 MiB body limit.
 */
export const hugeSizeArb = fc.oneof(
  fc.integer({ min: 60_000, max: 70_000 }),
  fc.integer({ min: 1_048_000, max: 1_049_000 }),
  fc.integer({ min: BODY_LIMIT - 2_000, max: BODY_LIMIT - 200 }),
  fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT + 64_000 }),
);

export const hugeString = (size: number, unit = "x") => unit.repeat(size);

/** An object with `count` distinct keys as JSON text (an error must not echo them all). */
export function manyKeysText(count: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(`"k${i}":${i}`);
  return `{${parts.join(",")}}`;
}
