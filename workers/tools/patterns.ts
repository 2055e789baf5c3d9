import path from "node:path";
import { z } from "zod";
import { MAX_PATTERN_CHARS } from "../../lib/protocol/permissions";
import type { AlwaysOptionInput } from "./define";

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
  .refine((p) => !p.includes("\0"), "a path may not contain a NUL character")
  .transform((p) => {
    const normal = path.posix.normalize(p.replaceAll("\\", "/"));
    return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
  })
  .refine((p) => !p.startsWith("/") && !/^[A-Za-z]:/.test(p), "a path inside the project, not an absolute one")
  .refine((p) => p !== ".." && !p.startsWith("../"), "a path inside the project (it may not climb out with ..)")
  .refine((p) => p !== ".", "a file's path, not the project's folder");

/** "Allow always" for a path: exactly it, or (for a file in a folder) any file under its folder. */
export function pathAlwaysOptions(filePath: string): AlwaysOptionInput[] {
  const exact = escapePattern(filePath);
  const options: AlwaysOptionInput[] = exact.length <= MAX_PATTERN_CHARS ? [{ pattern: exact, label: `\`${filePath}\` exactly` }] : [];
  const dir = path.posix.dirname(filePath);
  const folder = `${escapePattern(dir)}/**`;
  if (options.length > 0 && dir !== "." && folder.length <= MAX_PATTERN_CHARS) options.push({ pattern: folder, label: `any file under \`${dir}/\`` });
  return options;
}

/** "Allow always" for a command: exactly it, in the folder it runs in. */
export function commandAlwaysOptions(command: string, cwd: string): AlwaysOptionInput[] {
  const exact = escapePattern(command.trim());
  const where = cwd === "." ? "in the workspace's top folder" : `in \`${cwd}\``;
  return exact.length <= MAX_PATTERN_CHARS ? [{ pattern: exact, cwd, label: `\`${command.trim()}\` exactly, ${where}` }] : [];
}
