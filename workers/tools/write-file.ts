import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatchHunk } from "diff";
import { z } from "zod";
import { MAX_PREVIEW_CHARS } from "../../lib/protocol/permissions";
import { clip, defineTool } from "./define";
import { pathAlwaysOptions, ProjectPathSchema } from "./patterns";

const MAX_FILE_CHARS = 1_000_000;

/**
 * A unified diff of a file from `previous` to `content` (a new file when there is no previous),
 * with `a/` and `b/` headers and three lines of context. One longer than the preview allows keeps
 * the hunks that fit (the last one cut at a line, its counts made to match) and ends with a `\`
 * note saying how many lines are not shown: still a diff any parser reads.
 */
export function fileDiff(filePath: string, previous: string | undefined, content: string, maxChars = MAX_PREVIEW_CHARS): string {
  const patch = structuredPatch(previous === undefined ? "/dev/null" : `a/${filePath}`, `b/${filePath}`, previous ?? "", content, undefined, undefined, { context: 3 });
  const full = formatPatch(patch, FILE_HEADERS_ONLY);
  if (full.length <= maxChars) return full;
  const room = maxChars - 60;
  let size = formatPatch({ ...patch, hunks: [] }, FILE_HEADERS_ONLY).length;
  const kept: StructuredPatchHunk[] = [];
  for (const hunk of patch.hunks) {
    const header = 40; // "@@ -a,b +c,d @@\n", generously
    const lines: string[] = [];
    for (const line of hunk.lines) {
      if (size + header + line.length + 1 > room) break;
      lines.push(line);
      size += line.length + 1;
    }
    if (lines.length > 0) {
      const counts = (marks: string) => lines.filter((l) => marks.includes(l[0]!)).length;
      kept.push({ ...hunk, lines, oldLines: counts(" -"), newLines: counts(" +") });
      size += header;
    }
    if (lines.length < hunk.lines.length) break;
  }
  const shown = kept.reduce((n, h) => n + h.lines.length, 0);
  const rest = patch.hunks.reduce((n, h) => n + h.lines.length, 0) - shown;
  return `${formatPatch({ ...patch, hunks: kept }, FILE_HEADERS_ONLY)}\\ … ${rest} more line${rest === 1 ? "" : "s"} not shown\n`;
}

/** Writes a file of the project. In the offline demo the function simulates it: nothing is written. */
export const writeFileTool = defineTool({
  name: "write_file",
  description: "Writes a file of the project (its whole new content).",
  dangerous: true,
  subjectKind: "path",
  inputSchema: z.strictObject({
    path: ProjectPathSchema,
    content: z.string().max(MAX_FILE_CHARS),
    /** The file's content now, for the diff; absent for a new file. */
    previous: z.string().max(MAX_FILE_CHARS).optional(),
  }),
  subject: (input) => input.path,
  preview: (input) => ({ type: "diff", path: clip(input.path, 1_000), diff: fileDiff(input.path, input.previous, input.content) }),
  alwaysOptions: (input) => pathAlwaysOptions(input.path),
  prompt: (input) => `Write ${clip(input.path, 200)}?`,
});
