import { AppError, type ErrorCode } from "./errors";

/**
 * Plain JSON (null, booleans, finite numbers, strings, arrays and plain objects) as it enters
 * Parley. Everything here walks values with an explicit stack, never by recursion: a value nested
 * thousands deep gets a typed error, not "Maximum call stack size exceeded".
 */

/** What a JSON value is, for its errors: a person's reply, or other input (a run's input). */
export type JsonSubject = "reply" | "input";

export interface PlainJsonLimits {
  maxBytes: number;
  maxDepth: number;
  subject?: JsonSubject;
}

/** Why a value is not acceptable plain JSON: the error code it maps to and a message naming where. */
export interface PlainJsonProblem {
  code: ErrorCode;
  message: string;
}

interface Frame {
  value: unknown;
  depth: number;
  key: string | number | null;
  parent: Frame | null;
}

const MAX_PATH_CHARS = 120;

function pathOf(frame: Frame): string {
  const keys: Array<string | number> = [];
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) keys.push(f.key);
  const path = keys.reverse().reduce<string>((at, key) => (typeof key === "number" ? `${at}[${key}]` : `${at}.${key}`), "value");
  return path.length > MAX_PATH_CHARS ? `${path.slice(0, MAX_PATH_CHARS)}…` : path;
}

const NAMES: Record<JsonSubject, string> = { reply: "The reply", input: "The input" };

/**
 * The first reason `value` is not plain JSON within the limits, or null when it is. Shape and depth
 * are checked in one walk (a container at depth `maxDepth` is one too deep: the top level is depth 0);
 * the byte size (UTF-8 of its JSON) only once the depth is known to be safe to serialize.
 */
export function findPlainJsonProblem(value: unknown, { maxBytes, maxDepth, subject = "reply" }: PlainJsonLimits): PlainJsonProblem | null {
  const name = NAMES[subject];
  const problem = (kind: "not_json" | "too_deep" | "too_large", message: string): PlainJsonProblem => ({ code: `${subject}_${kind}`, message });
  if (value === undefined) return problem("not_json", `${name} has no value.`);
  const stack: Frame[] = [{ value, depth: 0, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (v === null || typeof v === "boolean" || typeof v === "string") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return problem("not_json", `${name} has a number that is not finite at ${pathOf(frame)}.`);
      continue;
    }
    if (typeof v !== "object") return problem("not_json", `${name} has a ${typeof v} at ${pathOf(frame)}; only plain JSON is accepted.`);
    if (frame.depth >= maxDepth) return problem("too_deep", `${name} nests deeper than ${maxDepth} levels.`);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: frame.depth + 1, key: i, parent: frame });
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return problem("not_json", `${name} has a non-plain object at ${pathOf(frame)}.`);
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], depth: frame.depth + 1, key: entries[i]![0], parent: frame });
  }
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > maxBytes) return problem("too_large", `${name} is ${bytes} bytes; at most ${maxBytes} are accepted.`);
  return null;
}

/** Throws the typed AppError (`reply_not_json`, `reply_too_deep`, `reply_too_large`, or `input_…`) when `value` is not plain JSON within the limits. */
export function checkPlainJson(value: unknown, limits: PlainJsonLimits): void {
  const problem = findPlainJsonProblem(value, limits);
  if (problem) throw new AppError(problem.code, problem.message);
}

/**
 * How deeply `value` nests arrays and objects (0 for a primitive), counting no further than
 * `limit + 1`: enough to tell whether it is within `limit`, without walking the rest.
 */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    const inner = depth + 1;
    deepest = Math.max(deepest, inner);
    if (deepest > limit) return deepest;
    for (const item of Array.isArray(v) ? v : Object.values(v)) {
      if (item !== null && typeof item === "object") stack.push({ value: item, depth: inner });
    }
  }
  return deepest;
}

type Container = { kind: "array"; source: object; items: unknown[]; next: number } | { kind: "object"; source: object; sorted: Record<string, unknown>; keys: string[]; next: number; wrote: boolean };

/** Omitted from objects, `null` in arrays, as JSON.stringify does. */
const omitted = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";

/**
 * JSON with sorted object keys: equal values give equal text, whatever the key order.
 *
 * The text is exactly `JSON.stringify(value, sortKeys)`'s (so digests stored before stay valid:
 * `toJSON` is honoured, undefined members are dropped, keys are ordered as an object rebuilt from
 * sorted entries orders them), but built with an explicit stack, so no depth overflows it.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: Container[] = [];
  const open = new Set<object>();

  /** A member as JSON.stringify sees it: after its toJSON. */
  const prepare = (key: string, v: unknown): unknown => {
    if ((typeof v === "object" && v !== null) || typeof v === "bigint") {
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function") return toJSON.call(v, key);
    }
    return v;
  };

  const write = (v: unknown): void => {
    if (v === null || typeof v !== "object") {
      // Primitives serialize as JSON.stringify does (it throws for a BigInt, as before).
      out.push(typeof v === "number" && !Number.isFinite(v) ? "null" : JSON.stringify(v));
      return;
    }
    if (open.has(v)) throw new TypeError("Converting circular structure to JSON");
    open.add(v);
    if (Array.isArray(v)) {
      out.push("[");
      stack.push({ kind: "array", source: v, items: v, next: 0 });
      return;
    }
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // Rebuilt as before: integer-like keys come first, in numeric order, as in any object.
    const sorted = Object.fromEntries(entries);
    out.push("{");
    stack.push({ kind: "object", source: v, sorted, keys: Object.keys(sorted), next: 0, wrote: false });
  };

  const root = prepare("", value);
  if (omitted(root)) return undefined as unknown as string;
  write(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.kind === "array") {
      if (top.next >= top.items.length) {
        out.push("]");
        open.delete(top.source);
        stack.pop();
        continue;
      }
      const index = top.next++;
      if (index > 0) out.push(",");
      const item = prepare(String(index), top.items[index]);
      if (omitted(item)) out.push("null");
      else write(item);
      continue;
    }
    if (top.next >= top.keys.length) {
      out.push("}");
      open.delete(top.source);
      stack.pop();
      continue;
    }
    const key = top.keys[top.next++]!;
    const item = prepare(key, top.sorted[key]);
    if (omitted(item)) continue;
    if (top.wrote) out.push(",");
    top.wrote = true;
    out.push(JSON.stringify(key), ":");
    write(item);
  }
  return out.join("");
}
