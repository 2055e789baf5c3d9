import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { z } from "zod";
import { clip, defineTool, ToolFailure } from "./define";
import { fsFailure, looksBinary } from "./fs-errors";
import { pathAlwaysOptions, ProjectPathSchema } from "./patterns";
import { confirmOpenedInside, resolveInside } from "./workspace-paths";

/** The largest file read_file returns (bytes). */
export const MAX_READ_BYTES = 100_000;

export interface ReadFileResult {
  [key: string]: string | number;
  path: string;
  content: string;
  bytes: number;
  lines: number;
}

/** Reads a text file of the workspace: not dangerous, allowed unless a rule says otherwise. */
export const readFileTool = defineTool({
  name: "read_file",
  description: `Reads a text file of the workspace (at most ${MAX_READ_BYTES / 1000} KB; a binary file is not read).`,
  dangerous: false,
  subjectKind: "path",
  inputSchema: z.strictObject({ path: ProjectPathSchema }),
  subject: (input) => input.path,
  inspect: async (input, ctx) => {
    await resolveInside(ctx.workspace, input.path);
  },
  preview: (input) => ({ type: "text", text: `Read ${input.path}` }),
  alwaysOptions: (input) => pathAlwaysOptions(input.path),
  prompt: (input) => `Read ${clip(input.path, 200)}?`,
  async run(input, ctx): Promise<ReadFileResult> {
    const { real, root } = await resolveInside(ctx.workspace, input.path);
    try {
      const file = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        await confirmOpenedInside(file.fd, root, input.path);
        const stat = await file.stat();
        if (!stat.isFile()) throw new ToolFailure(`\`${input.path}\` is ${stat.isDirectory() ? "a folder (use list_files)" : "not a regular file"}.`);
        if (stat.size > MAX_READ_BYTES)
          throw new ToolFailure(`\`${input.path}\` is ${stat.size} bytes, more than read_file's limit of ${MAX_READ_BYTES}: not read. Search it with search_files instead.`);
        const bytes = await file.readFile();
        if (looksBinary(bytes)) throw new ToolFailure(`\`${input.path}\` is a binary file (${bytes.length} bytes): not read.`);
        const content = new TextDecoder("utf-8").decode(bytes);
        return { path: input.path, content, bytes: bytes.length, lines: content === "" ? 0 : content.split("\n").length - (content.endsWith("\n") ? 1 : 0) };
      } finally {
        await file.close();
      }
    } catch (err) {
      throw fsFailure(err, input.path);
    }
  },
});
