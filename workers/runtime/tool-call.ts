import { isServerDenial } from "../../lib/protocol/permissions";
import type { JsonValue } from "../../lib/protocol/question";
import { clip, ToolFailure, type Tool, type ToolContext } from "../tools/define";
import { fsFailure } from "../tools/fs-errors";
import { PathRefused } from "../tools/workspace-paths";
import { ToolDenied, ToolFailed } from "./errors";
import type { Settlement } from "./runtime";

/**
 * Helpers of `rt.tool`: the input an approval carries, and the error a tool call that may not run
 * throws.
 */

/** Characters of JSON an approval's copy of the input may take; the preview shows the rest readably. */
export const MAX_APPROVAL_INPUT_CHARS = 20_000;
/** How deeply the approval's copy of the input nests (the wire allows 32). */
const MAX_APPROVAL_INPUT_DEPTH = 16;

/**
 * The tool's input as an approval carries it: the same JSON when it is small, otherwise with long
 * strings cut (a note says how much) and deep nesting elided, within MAX_APPROVAL_INPUT_CHARS.
 */
export function boundedInput(input: unknown, maxChars = MAX_APPROVAL_INPUT_CHARS): JsonValue {
  const json = (input === undefined ? null : JSON.parse(JSON.stringify(input))) as JsonValue;
  for (const maxString of [Infinity, 2_000, 200, 20]) {
    const bounded = shorten(json, maxString, 0);
    if (JSON.stringify(bounded).length <= maxChars) return bounded;
  }
  const text = JSON.stringify(shorten(json, 20, 0));
  return { clipped: true, json: clip(text, maxChars - 100) };
}

function shorten(value: JsonValue, maxString: number, depth: number): JsonValue {
  if (typeof value === "string") {
    return value.length <= maxString ? value : `${value.slice(0, maxString)}… (${value.length - maxString} more characters)`;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_APPROVAL_INPUT_DEPTH) return "…";
  if (Array.isArray(value)) return value.map((v) => shorten(v, maxString, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v, maxString, depth + 1)]));
}

/** A wait as words: "30 minutes", "20 seconds", "2 hours". */
export function describeWait(ms: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return unit(ms / 3_600_000, "hour");
  if (ms >= 60_000 && ms % 60_000 === 0) return unit(ms / 60_000, "minute");
  if (ms >= 1_000) return unit(Math.round(ms / 1_000), "second");
  return unit(ms, "millisecond");
}

/** The ToolDenied of an approval that was declined. */
export function declinedError(tool: string, subject: string, s: Pick<Settlement, "feedback">): ToolDenied {
  const what = `${tool} \`${clip(subject.replace(/\s+/g, " "), 200)}\``;
  const feedback = s.feedback?.trim() || null;
  if (feedback && isServerDenial(feedback)) return new ToolDenied(tool, subject, "denied", null, feedback);
  return new ToolDenied(tool, subject, "rejected", feedback, feedback ? `The user rejected ${what}: ${feedback}` : `The user rejected ${what}.`);
}

/** The ToolDenied of an approval nobody answered in time, its fallback "deny". */
export function timedOutError(tool: string, subject: string, timeoutMs: number | null): ToolDenied {
  return new ToolDenied(tool, subject, "timed_out", null, `No answer in ${timeoutMs === null ? "time" : describeWait(timeoutMs)}: denied.`);
}

/**
 * What a tool's checks before the approval threw, as the error `rt.tool` throws: a path leading
 * out of the workspace is denied (nothing is asked); a file that cannot be used fails the call.
 */
export function inspectionError(tool: string, subject: string, err: unknown): Error {
  const failure = fsFailure(err, subject);
  if (failure instanceof PathRefused) return new ToolDenied(tool, subject, "denied", null, `Denied: ${failure.message}`);
  if (failure instanceof ToolFailure) return new ToolFailed(tool, subject, failure.message);
  return failure;
}

/**
 * Runs a catalogue tool's real implementation. A failure the caller can act on becomes the result
 * `{ error }` (journaled like any result, so a replay fails the same way); anything else throws.
 */
export async function runRealTool(tool: Tool, input: unknown, ctx: ToolContext, approved: JsonValue | undefined): Promise<JsonValue> {
  try {
    return await tool.run(input, ctx, approved);
  } catch (err) {
    const failure = fsFailure(err, "the path");
    if (failure instanceof PathRefused) return { error: `Denied: ${failure.message}` };
    if (failure instanceof ToolFailure) return { error: failure.message };
    throw failure;
  }
}

/** The message of a real tool's recorded failure, or null for a result. */
export function toolFailureOf(output: unknown): string | null {
  if (output && typeof output === "object" && !Array.isArray(output)) {
    const error = (output as Record<string, unknown>).error;
    if (typeof error === "string" && Object.keys(output).length === 1) return error;
  }
  return null;
}
