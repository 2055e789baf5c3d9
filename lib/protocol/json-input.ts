import { z } from "zod";
import { findPlainJsonProblem, nestingDepth, type JsonSubject } from "./plain-json";

/**
 * Ceilings for JSON that enters Parley from outside (REST, Socket.IO, the CLI, the inbox), checked
 * inside the zod schemas before anything hashes, stores or walks it recursively. A run's policy
 * may lower them (maxReplyBytes); nothing raises them.
 */

/** How deeply any JSON a caller sends may nest arrays and objects (a run's input). */
export const MAX_JSON_DEPTH = 64;
/** How deeply a reply may nest: below the ceiling, the same for every run. */
export const MAX_REPLY_DEPTH = 32;
/** UTF-8 bytes of any JSON value a caller sends, as JSON: the largest reply a policy allows (1 MiB). */
export const MAX_JSON_BYTES = 1_048_576;
/**
 * How deeply JSON a run produces itself (step outputs, results, answers and reply schemas over
 * IPC) may nest: far above what callers may send, far below where a recursive reader (zod's
 * `z.json()`, JSON.stringify) would overflow the stack.
 */
export const MAX_RUN_JSON_DEPTH = 256;

/**
 * Any JSON value within the limits, as a zod schema: a value that is not plain JSON, nests too
 * deep or is too large fails with an issue naming its typed code (`reply_too_deep`, …), which
 * `parseOrThrow` turns into that AppError. A missing value is a plain `bad_request`; make the
 * schema `.optional()` where it may be absent.
 */
export function plainJson({ subject, maxBytes = MAX_JSON_BYTES, maxDepth = MAX_JSON_DEPTH }: { subject: JsonSubject; maxBytes?: number; maxDepth?: number }) {
  return z.unknown().superRefine((value, ctx) => {
    if (value === undefined) return ctx.addIssue({ code: "custom", message: "A value is required." });
    const problem = findPlainJsonProblem(value, { maxBytes, maxDepth, subject });
    if (problem) ctx.addIssue({ code: "custom", message: problem.message, params: { errorCode: problem.code } });
  });
}

/** A reply as any transport takes it: plain JSON within the global ceiling (the run's policy may allow less). */
export const ReplyValueSchema = plainJson({ subject: "reply", maxDepth: MAX_REPLY_DEPTH });

/** A tool's input as an answerer edited it before allowing the call: a JSON object within the reply's ceilings. */
export const EditedInputSchema = ReplyValueSchema.pipe(z.record(z.string(), z.unknown()));

/** A run's input as a caller sends it. */
export const RunInputSchema = plainJson({ subject: "input" });

/** Only a nesting check (no shape or size): for values a run produced, before a recursive schema reads them. */
export function nestedAtMost(maxDepth: number = MAX_RUN_JSON_DEPTH) {
  return z.unknown().superRefine((value, ctx) => {
    if (nestingDepth(value, maxDepth) > maxDepth) {
      ctx.addIssue({ code: "custom", message: `The value nests deeper than ${maxDepth} levels.`, params: { errorCode: "input_too_deep" } });
    }
  });
}
