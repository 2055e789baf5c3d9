import { stat } from "node:fs/promises";
import { z } from "zod";
import { clip, defineTool, ToolFailure } from "./define";
import { fsFailure } from "./fs-errors";
import { pathAlwaysOptions } from "./patterns";
import { walk } from "./walk";
import { FolderPathSchema, resolveInside } from "./workspace-paths";

export const MAX_LIST_ENTRIES = 1_000;

export interface ListFilesResult {
  [key: string]: string | boolean | string[];
  path: string;
  /** One line an entry: folders end with `/`, symbolic links with ` -> (link)`. */
  entries: string[];
  /** Entries were left out past the limit. */
  truncated: boolean;
}

/** Lists a folder of the workspace: not dangerous. */
export const listFilesTool = defineTool({
  name: "list_files",
  description: `Lists a folder of the workspace (folders end with /); recursive lists what is inside the folders too (.git and node_modules are not entered), at most \`limit\` entries (default 200, at most ${MAX_LIST_ENTRIES}).`,
  dangerous: false,
  subjectKind: "path",
  inputSchema: z.strictObject({
    path: FolderPathSchema.default("."),
    recursive: z.boolean().default(false),
    limit: z.number().int().min(1).max(MAX_LIST_ENTRIES).default(200),
  }),
  subject: (input) => input.path,
  inspect: async (input, ctx) => {
    await resolveInside(ctx.workspace, input.path);
  },
  preview: (input) => ({ type: "text", text: `List ${input.path === "." ? "the workspace" : input.path}${input.recursive ? " and everything inside" : ""}` }),
  alwaysOptions: (input) => pathAlwaysOptions(input.path),
  prompt: (input) => `List ${clip(input.path, 200)}?`,
  async run(input, ctx): Promise<ListFilesResult> {
    const { real } = await resolveInside(ctx.workspace, input.path);
    try {
      if (!(await stat(real)).isDirectory()) throw new ToolFailure(`\`${input.path}\` is a file, not a folder (read it with read_file).`);
      const { entries, more } = await walk(real, { recursive: input.recursive, limit: input.limit, signal: ctx.signal });
      const lines = entries.map((e) => (e.kind === "folder" ? `${e.rel}/${e.skipped ? " (not listed)" : ""}` : e.kind === "link" ? `${e.rel} -> (link)` : e.rel));
      return { path: input.path, entries: lines, truncated: more };
    } catch (err) {
      throw fsFailure(err, input.path);
    }
  },
});
