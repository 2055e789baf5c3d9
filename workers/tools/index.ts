import type { z } from "zod";
import type { ToolInfo } from "../../lib/protocol/permissions";
import { toolInfo, type Tool } from "./define";
import { readFileTool } from "./read-file";
import { shellTool } from "./shell";
import { writeFileTool } from "./write-file";

export { clip, defineTool, toolInfo } from "./define";
export type { Tool, ToolDefinition } from "./define";
export { commandAlwaysOptions, escapePattern, pathAlwaysOptions, ProjectPathSchema } from "./patterns";
export { fileDiff } from "./write-file";
export { readFileTool, shellTool, writeFileTool };

/** Every tool an agent function can use through `rt.tool`. Light imports only: the server reads the catalogue too. */
export const tools: readonly Tool[] = [shellTool, writeFileTool, readFileTool];

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
  read_file: z.input<typeof readFileTool.inputSchema>;
}
/** The checked (normalised) input a catalogue tool's implementation gets. */
export interface ToolParsedInputs {
  shell: z.output<typeof shellTool.inputSchema>;
  write_file: z.output<typeof writeFileTool.inputSchema>;
  read_file: z.output<typeof readFileTool.inputSchema>;
}
