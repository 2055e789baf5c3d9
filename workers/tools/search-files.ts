import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { clip, defineTool } from "./define";
import { fsFailure, looksBinary } from "./fs-errors";
import { pathAlwaysOptions } from "./patterns";
import { walk } from "./walk";
import { FolderPathSchema, resolveInside } from "./workspace-paths";

export const MAX_SEARCH_RESULTS = 200;
/** Files larger than this are not searched (bytes). */
export const MAX_SEARCH_FILE_BYTES = 1_000_000;
/** Files a search looks at, at most. */
export const MAX_SEARCH_FILES = 5_000;
/** Bytes a search reads, at most: past it the search stops, saying it is truncated. */
export const MAX_SEARCH_TOTAL_BYTES = 50_000_000;
const MAX_LINE_CHARS = 300;

/** Files a search never opens: what rules deny reading by default. */
const secretFile = (name: string) => /^\.env/i.test(name);

export interface SearchFilesResult {
  [key: string]: string | number | boolean | string[];
  path: string;
  query: string;
  /** `file:line: text`, the line clipped. */
  matches: string[];
  /** More matches than the limit, or more files (or bytes) than a search looks at. */
  truncated: boolean;
  filesSearched: number;
  /** Files not searched: binary, larger than MAX_SEARCH_FILE_BYTES, or .env*. */
  filesSkipped: number;
}

/**
 * Searches the text files under a folder of the workspace for a literal text (no regular
 * expressions: a pattern from a model could take exponential time). Not dangerous.
 */
export const searchFilesTool = defineTool({
  name: "search_files",
  description: `Searches the text files under a folder of the workspace for a literal text (not a regular expression), optionally ignoring case. Returns file:line: text, at most \`limit\` matches (default 50, at most ${MAX_SEARCH_RESULTS}); binary files, files over 1 MB, .env files, .git and node_modules are skipped.`,
  dangerous: false,
  subjectKind: "path",
  inputSchema: z.strictObject({
    query: z.string().min(1, "query may not be empty").max(1_000),
    path: FolderPathSchema.default("."),
    ignoreCase: z.boolean().default(false),
    limit: z.number().int().min(1).max(MAX_SEARCH_RESULTS).default(50),
  }),
  subject: (input) => input.path,
  inspect: async (input, ctx) => {
    await resolveInside(ctx.workspace, input.path);
  },
  preview: (input) => ({ type: "text", text: `Search ${input.path === "." ? "the workspace" : input.path} for "${clip(input.query, 500)}"${input.ignoreCase ? " (ignoring case)" : ""}` }),
  alwaysOptions: (input) => pathAlwaysOptions(input.path),
  prompt: (input) => `Search ${clip(input.path, 200)} for "${clip(input.query.replace(/\s+/g, " "), 100)}"?`,
  async run(input, ctx): Promise<SearchFilesResult> {
    const { real } = await resolveInside(ctx.workspace, input.path);
    const needle = input.ignoreCase ? input.query.toLowerCase() : input.query;
    const matches: string[] = [];
    let filesSearched = 0;
    let filesSkipped = 0;
    let bytesRead = 0;
    try {
      const isFile = (await stat(real)).isFile();
      const files = isFile ? { entries: [{ rel: path.basename(real), kind: "file" as const }], more: false } : await walk(real, { recursive: true, limit: MAX_SEARCH_FILES * 4, signal: ctx.signal });
      let truncated = files.more;
      const prefix = isFile ? path.posix.dirname(input.path) : input.path;
      for (const entry of files.entries) {
        if (entry.kind !== "file") continue;
        if (ctx.signal.aborted || filesSearched >= MAX_SEARCH_FILES) {
          truncated = true;
          break;
        }
        const shown = prefix === "." ? entry.rel : `${prefix}/${entry.rel}`;
        const file = isFile ? real : path.join(real, ...entry.rel.split("/"));
        const { size } = await stat(file);
        if (secretFile(path.basename(entry.rel)) || size > MAX_SEARCH_FILE_BYTES) {
          filesSkipped++;
          continue;
        }
        if (bytesRead + size > MAX_SEARCH_TOTAL_BYTES) {
          truncated = true;
          break;
        }
        bytesRead += size;
        const bytes = await readFile(file);
        if (looksBinary(bytes)) {
          filesSkipped++;
          continue;
        }
        filesSearched++;
        const lines = new TextDecoder("utf-8").decode(bytes).split("\n");
        for (const [i, line] of lines.entries()) {
          if (!(input.ignoreCase ? line.toLowerCase() : line).includes(needle)) continue;
          if (matches.length >= input.limit) {
            truncated = true;
            break;
          }
          matches.push(`${shown}:${i + 1}: ${clip(line.trim(), MAX_LINE_CHARS)}`);
        }
        if (matches.length >= input.limit && truncated) break;
      }
      return { path: input.path, query: input.query, matches, truncated, filesSearched, filesSkipped };
    } catch (err) {
      throw fsFailure(err, input.path);
    }
  },
});
