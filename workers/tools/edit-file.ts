import { z } from "zod";
import { clip, defineTool, ToolFailure } from "./define";
import { currentFile, fileStamp, lineCount, MAX_FILE_CHARS, sameAsApproved, writeAtomically, type CurrentFile } from "./file-text";
import { pathAlwaysOptions, ProjectPathSchema } from "./patterns";
import { changePreview } from "./write-file";

type Input = { path: string; old: string; new: string };

/** The file's text with `old` replaced by `new`, which must occur exactly once. */
function replaced(input: Input, current: CurrentFile): { before: string; after: string } {
  if (current.kind === "missing") throw new ToolFailure(`\`${input.path}\` does not exist: edit_file changes an existing file (write_file makes a new one).`);
  if (current.kind !== "text") throw new ToolFailure(`\`${input.path}\` is ${current.kind === "binary" ? "a binary file" : "too big to edit"} (${current.bytes} bytes).`);
  const first = current.content.indexOf(input.old);
  if (first < 0) throw new ToolFailure(`The text to replace was not found in \`${input.path}\` (it must match exactly, spaces and line ends included). Read the file and try again.`);
  let count = 0;
  for (let at = first; at >= 0 && count < 100; at = current.content.indexOf(input.old, at + input.old.length)) count++;
  if (count > 1) throw new ToolFailure(`The text to replace occurs ${count >= 100 ? "100 or more" : count} times in \`${input.path}\`: give more of the text around it so it occurs once.`);
  const after = current.content.slice(0, first) + input.new + current.content.slice(first + input.old.length);
  if (after.length > MAX_FILE_CHARS) throw new ToolFailure(`\`${input.path}\` would be longer than ${MAX_FILE_CHARS} characters.`);
  return { before: current.content, after };
}

export interface EditFileResult {
  [key: string]: string | number | boolean;
  path: string;
  written: true;
  lines: number;
}

/** Replaces one exact text of a workspace file by another: dangerous, asks with the diff. */
export const editFileTool = defineTool({
  name: "edit_file",
  description: "Edits a file of the workspace: replaces the exact text `old` (which must occur exactly once) by `new`. The approval shows the diff.",
  dangerous: true,
  subjectKind: "path",
  inputSchema: z.strictObject({
    path: ProjectPathSchema,
    old: z.string().min(1, "old may not be empty: give the exact text to replace").max(MAX_FILE_CHARS),
    new: z.string().max(MAX_FILE_CHARS),
  }),
  subject: (input) => input.path,
  async inspect(input, ctx) {
    const current = await currentFile(ctx.workspace, input.path);
    replaced(input, current);
    return current;
  },
  preview: (input, current: CurrentFile | undefined) =>
    current
      ? changePreview(input.path, current, replaced(input, current).after)
      : { type: "text", text: `In ${clip(input.path, 1_000)}, replace:\n${clip(input.old, 4_000)}\n\nby:\n${clip(input.new, 4_000)}` },
  stamp: fileStamp,
  alwaysOptions: (input) => pathAlwaysOptions(input.path),
  prompt: (input) => `Edit ${clip(input.path, 200)}?`,
  async run(input, ctx, approved): Promise<EditFileResult> {
    const now = await currentFile(ctx.workspace, input.path);
    sameAsApproved(input.path, approved, now);
    const { after } = replaced(input, now);
    await writeAtomically(ctx.workspace, input.path, after);
    return { path: input.path, written: true, lines: lineCount(after) };
  },
});
