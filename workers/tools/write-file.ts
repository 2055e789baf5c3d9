import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatchHunk } from "diff";
import { z } from "zod";
import { MAX_PREVIEW_CHARS, type ToolPreview } from "../../lib/protocol/permissions";
import { clip, defineTool } from "./define";
import { currentFile, fileStamp, lineCount, MAX_FILE_CHARS, sameAsApproved, writeAtomically, type CurrentFile } from "./file-text";
import { pathAlwaysOptions, ProjectPathSchema } from "./patterns";

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

/** A write's preview: the diff from the file's real current content (read before asking). */
export function changePreview(filePath: string, current: CurrentFile | undefined, content: string): ToolPreview {
  if (current?.kind === "binary" || current?.kind === "too_big") {
    const what = current.kind === "binary" ? "a binary file" : "a file too big to compare";
    return { type: "text", text: `Replace ${clip(filePath, 1_000)} (now ${what} of ${current.bytes} bytes) with ${lineCount(content)} lines of text:\n\n${clip(content, 8_000)}` };
  }
  return { type: "diff", path: clip(filePath, 1_000), diff: fileDiff(filePath, current?.kind === "text" ? current.content : undefined, content) };
}

export interface WriteFileResult {
  [key: string]: string | number | boolean;
  path: string;
  written: true;
  created: boolean;
  bytes: number;
  lines: number;
}

/** Writes a whole file of the workspace (atomically, its folders made): dangerous, asks by default. */
export const writeFileTool = defineTool({
  name: "write_file",
  description: "Writes a file of the workspace: its whole new content (folders are created). The approval shows the diff from what the file holds now.",
  dangerous: true,
  subjectKind: "path",
  inputSchema: z.strictObject({
    path: ProjectPathSchema,
    content: z.string().max(MAX_FILE_CHARS),
  }),
  subject: (input) => input.path,
  inspect: (input, ctx) => currentFile(ctx.workspace, input.path),
  // Without `current` (a caller's own implementation, not the workspace's file): the diff of a new file.
  preview: (input, current: CurrentFile | undefined) => changePreview(input.path, current, input.content),
  stamp: fileStamp,
  alwaysOptions: (input) => pathAlwaysOptions(input.path),
  prompt: (input) => `Write ${clip(input.path, 200)}?`,
  async run(input, ctx, approved): Promise<WriteFileResult> {
    sameAsApproved(input.path, approved, await currentFile(ctx.workspace, input.path));
    const { created, bytes } = await writeAtomically(ctx.workspace, input.path, input.content);
    return { path: input.path, written: true, created, bytes, lines: lineCount(input.content) };
  },
});
