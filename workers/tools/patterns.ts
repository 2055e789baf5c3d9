import path from "node:path";
import { MAX_PATTERN_CHARS } from "../../lib/protocol/permissions";
import { commandText, exactCommandPattern, wideCommandPattern } from "../../lib/permissions/command-allow";
import { widerWords } from "../../lib/permissions/command-risks";
import { escapePattern } from "../../lib/permissions/pattern-text";
import { shellWords } from "../../lib/permissions/shell-words";
import { folderWords, normaliseFolder } from "../../lib/permissions/working-folder";
import type { AlwaysOptionInput } from "./define";

/**
 * Subjects and "Allow always" patterns as the server's rules read them: a path pattern is a glob
 * (`docs/**`), a command's allow pattern an exact command or words then ` *` (lib/permissions/
 * command-allow.ts); in both `\` makes the next character literal, so text taken from a call is escaped.
 */

export { escapePattern };

export { ProjectPathSchema } from "./workspace-paths";

/** A folder whose every file a builtin rule denies to path tools (`.git`, `.env*`): never offered as "any file under". */
const deniedFolder = (dir: string) => dir.split("/").some((part) => /^\.git$/i.test(part)) || /(^|\/)\.env[^/]*$/i.test(dir);

/**
 * "Allow always" for a path: exactly it; then, for a file in a folder, any file under that folder
 * (never `**` for a file at the top, never a folder the builtin rules deny).
 */
export function pathAlwaysOptions(filePath: string): AlwaysOptionInput[] {
  const exact = escapePattern(filePath);
  if (exact.length > MAX_PATTERN_CHARS) return [];
  const options: AlwaysOptionInput[] = [{ pattern: exact, label: `\`${filePath}\` exactly` }];
  const dir = path.posix.dirname(filePath);
  const folder = `${escapePattern(dir)}/**`;
  if (dir !== "." && !deniedFolder(dir) && folder.length <= MAX_PATTERN_CHARS) options.push({ pattern: folder, label: `any file under \`${dir}/\`` });
  return options;
}

/**
 * "Allow always" for a command, both limited to the folder it runs in: exactly it; then, when
 * its words are plain and safe to widen (see `widerWords`), "`npm test` with any further arguments".
 */
export function commandAlwaysOptions(command: string, cwd: string): AlwaysOptionInput[] {
  const folder = normaliseFolder(cwd);
  const where = folderWords(folder);
  const text = command.trim();
  const exact = exactCommandPattern(text);
  if (exact.length > MAX_PATTERN_CHARS) return [];
  const options: AlwaysOptionInput[] = [{ pattern: exact, cwd: folder, label: `\`${text}\` exactly, ${where}` }];
  const parsed = shellWords(text);
  const wider = parsed.ok ? widerWords(parsed.words) : null;
  const pattern = wider && wideCommandPattern(wider);
  if (wider && pattern && pattern.length <= MAX_PATTERN_CHARS) options.push({ pattern, cwd: folder, label: `\`${commandText(wider)}\` with any further arguments, ${where}` });
  return options;
}
