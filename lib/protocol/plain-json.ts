import { AppError } from "./errors";

/**
 * Checks that a reply is finite plain JSON (null, booleans, finite numbers, strings, arrays and
 * plain objects), nested at most `maxDepth` deep and at most `maxBytes` UTF-8 bytes as JSON.
 */
export function checkPlainJson(value: unknown, { maxBytes, maxDepth }: { maxBytes: number; maxDepth: number }): void {
  const visit = (v: unknown, depth: number, path: string): void => {
    if (v === null || typeof v === "boolean" || typeof v === "string") return;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new AppError("reply_not_json", `The reply has a number that is not finite at ${path}.`);
      return;
    }
    if (typeof v !== "object") throw new AppError("reply_not_json", `The reply has a ${typeof v} at ${path}; only plain JSON is accepted.`);
    if (depth >= maxDepth) throw new AppError("reply_too_deep", `The reply nests deeper than ${maxDepth} levels.`);
    if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, depth + 1, `${path}[${i}]`));
      return;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) throw new AppError("reply_not_json", `The reply has a non-plain object at ${path}.`);
    for (const [key, item] of Object.entries(v)) visit(item, depth + 1, `${path}.${key}`);
  };
  if (value === undefined) throw new AppError("reply_not_json", "The reply has no value.");
  visit(value, 0, "value");
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > maxBytes) throw new AppError("reply_too_large", `The reply is ${bytes} bytes; this run accepts at most ${maxBytes}.`);
}

/** JSON with sorted object keys: equal values give equal text, whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
