import type { z } from "zod";
import type { ToolInfo } from "../../lib/protocol/permissions";
import { toolInfo, type Tool } from "./define";
import { editFileTool, type EditFileResult } from "./edit-file";
import { listFilesTool, type ListFilesResult } from "./list-files";
import { readFileTool, type ReadFileResult } from "./read-file";
import { searchFilesTool, type SearchFilesResult } from "./search-files";
import { shellTool, type ShellResult } from "./shell";
import { writeFileTool, type WriteFileResult } from "./write-file";

export { clip, defineTool, toolInfo, ToolFailure } from "./define";
export type { Tool, ToolContext, ToolDefinition } from "./define";
export { commandAlwaysOptions, escapePattern, pathAlwaysOptions, ProjectPathSchema } from "./patterns";
export { fileDiff } from "./write-file";
export { PathRefused, workspaceFolder } from "./workspace-paths";
export { editFileTool, listFilesTool, readFileTool, searchFilesTool, shellTool, writeFileTool };

/** Every tool an agent function can use through `rt.tool`. Light imports only: the server reads the catalogue too. */
export const tools: readonly Tool[] = [shellTool, writeFileTool, editFileTool, readFileTool, listFilesTool, searchFilesTool];

const byName = new Map(tools.map((t) => [t.name, t]));

export function findTool(name: string): Tool | undefined {
  return byName.get(name);
}

/** The catalogue as the server and clients know it (name, description, dangerous). */
export const toolCatalogue: readonly ToolInfo[] = tools.map(toolInfo);

/** The input each catalogue tool takes, by name: what `rt.tool(name, input, …)` is typed with. */
export interface ToolInputs {
  shell: z.input<typeof shellTool.inputSchema>;
  write_file: z.input<typeof writeFileTool.inputSchema>;
  edit_file: z.input<typeof editFileTool.inputSchema>;
  read_file: z.input<typeof readFileTool.inputSchema>;
  list_files: z.input<typeof listFilesTool.inputSchema>;
  search_files: z.input<typeof searchFilesTool.inputSchema>;
}
/** The checked (normalised) input a catalogue tool's implementation gets. */
export interface ToolParsedInputs {
  shell: z.output<typeof shellTool.inputSchema>;
  write_file: z.output<typeof writeFileTool.inputSchema>;
  edit_file: z.output<typeof editFileTool.inputSchema>;
  read_file: z.output<typeof readFileTool.inputSchema>;
  list_files: z.output<typeof listFilesTool.inputSchema>;
  search_files: z.output<typeof searchFilesTool.inputSchema>;
}
/** What a catalogue tool's real implementation returns: what `rt.tool(name, input)` without an implementation resolves to. */
export interface ToolResults {
  shell: ShellResult;
  write_file: WriteFileResult;
  edit_file: EditFileResult;
  read_file: ReadFileResult;
  list_files: ListFilesResult;
  search_files: SearchFilesResult;
}
