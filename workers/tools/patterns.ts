import path from "node:path";
import { z } from "zod";
import { MAX_PATTERN_CHARS } from "../../lib/protocol/permissions";

/**
 * Subjects and "Allow always" patterns as the server's rule matcher reads them: a path pattern is
 * a glob (`docs/**`), a command pattern has `*` for anything; in both `\` makes the next character
 * literal, so the text taken from a call is escaped.
 */

/** Text as a pattern that matches exactly it: glob characters escaped. */
export function escapePattern(text: string): string {
  return text.replace(/[\\*?[\]{}()!+@|]/g, "\\$&");
}

/** A path inside the project, normalised (`./docs//a.md` → `docs/a.md`): not absolute, not climbing out with `..`. */
export const ProjectPathSchema = z
  .string()
  .trim()
  .min(1, "A path may not be empty")
  .max(1_000)
  .transform((p) => {
    const normal = path.posix.normalize(p.replaceAll("\\", "/"));
    return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
  })
  .refine((p) => !p.startsWith("/") && !/^[A-Za-z]:/.test(p), "a path inside the project, not an absolute one")
  .refine((p) => p !== ".." && !p.startsWith("../"), "a path inside the project (it may not climb out with ..)")
  .refine((p) => p !== ".", "a file's path, not the project's folder");

/**
 * "Allow always" for a path: its folder and everything below (`docs/**`), `**` for a file at the
 * root. A folder too long for a pattern gives way to its nearest ancestor that fits.
 */
export function folderPattern(filePath: string): string {
  let dir = path.posix.dirname(filePath);
  while (dir !== "." && dir !== "/") {
    const pattern = `${escapePattern(dir)}/**`;
    if (pattern.length <= MAX_PATTERN_CHARS) return pattern;
    dir = path.posix.dirname(dir);
  }
  return "**";
}

/** "Allow always" for a command: its first two words (one for a one-word command) and `*`: `npm test*`. */
export function commandPattern(command: string): string {
  const words = command.trim().split(/\s+/).slice(0, 2);
  let prefix = escapePattern(words.join(" "));
  // Too long for a pattern: a shorter prefix of the same command, never cut inside an escape.
  if (prefix.length + 1 > MAX_PATTERN_CHARS) {
    prefix = prefix.slice(0, MAX_PATTERN_CHARS - 1);
    const trailing = prefix.match(/\\+$/)?.[0].length ?? 0;
    if (trailing % 2 === 1) prefix = prefix.slice(0, -1);
  }
  return `${prefix}*`;
}
