import { clip } from "./bounded-text";

// C0 controls but tab and newline (a carriage return only before a newline), and DEL.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f]|\r(?!\n)/;

/**
 * Why text a person or a client sends may not be stored, or null when it may: a NUL or another
 * control character (newlines and tabs are text), or a lone surrogate (no valid Unicode: it
 * cannot be sent on as UTF-8).
 */
export function textProblem(text: string): string | null {
  if (text.includes("\u0000")) return "holds a NUL character";
  if (CONTROL.test(text)) return "holds a control character (only newlines and tabs belong in text)";
  if (!text.isWellFormed()) return "holds a lone surrogate (it is not valid Unicode)";
  return null;
}

/** A zod refinement: the text has no textProblem. */
export function checkText(text: string, ctx: { addIssue(issue: { code: "custom"; message: string }): void }): void {
  const problem = textProblem(text);
  if (problem) ctx.addIssue({ code: "custom", message: `the text ${problem}` });
}

/** The first string in a JSON value (its keys too) with a textProblem, as `path: problem`; null when there is none. */
export function jsonTextProblem(value: unknown, maxDepth = 64): string | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: "", depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return `${path === "" ? "the answer" : `the answer's ${clip(path, 100)}`} ${problem}`;
      continue;
    }
    if (v === null || typeof v !== "object" || depth > maxDepth) continue;
    for (const [key, item] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
      if (typeof key === "string") {
        const problem = textProblem(key);
        if (problem) return `the answer's key ${JSON.stringify(clip(key, 40))} ${problem}`;
      }
      stack.push({ value: item, path: `${path}/${key}`, depth: depth + 1 });
    }
  }
  return null;
}
