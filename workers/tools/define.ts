import type { z } from "zod";
import type { AlwaysOption, SubjectKind, ToolInfo, ToolPreview } from "../../lib/protocol/permissions";

export type AlwaysOptionInput = Omit<AlwaysOption, "cwd"> & { cwd?: string | null };

/**
 * A tool an agent function uses through `rt.tool`: what it is called, whether it needs a person's
 * approval by default, how its input is checked, and how a call is shown and matched by rules.
 */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  /** The name rules and approvals use, e.g. `shell`. */
  name: string;
  /** One line for the catalogue. */
  description: string;
  /** Dangerous tools need a person's approval unless a rule says otherwise; the rest are allowed by default. */
  dangerous: boolean;
  /** How rules match `subject`: a path (`docs/**`) or a command (`npm test*`). */
  subjectKind: SubjectKind;
  /** Checks (and may normalize) a call's input before anything is asked. */
  inputSchema: S;
  /** What rules match: the command, the path … */
  subject(input: z.output<S>): string;
  /** A readable preview of the call for the approval card. */
  preview(input: z.output<S>): ToolPreview;
  /** The folder the call runs in, relative to the workspace (`.` its top folder), for a tool that has one (shell): rules may be limited to it. */
  workingFolder?(input: z.output<S>): string;
  /** The rules an "Allow always" answer may add: exactly this call first, then at most one wider rule the person may choose. */
  alwaysOptions(input: z.output<S>): AlwaysOptionInput[];
  /** The approval's prompt, one line: "Run `npm test`?". By default "Use <tool> on <subject>?". */
  prompt?(input: z.output<S>): string;
}

/** A tool of the catalogue (its input type erased). */
export type Tool = ToolDefinition<z.ZodType>;

export function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}

/** What the server and clients know of a tool. */
export const toolInfo = (tool: Tool): ToolInfo => ({ name: tool.name, description: tool.description, dangerous: tool.dangerous, subjectKind: tool.subjectKind });

/** Text shortened to `max` characters, an ellipsis marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
