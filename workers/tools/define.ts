import type { z } from "zod";
import type { JsonValue } from "../../lib/protocol/question";
import type { AlwaysOption, SubjectKind, ToolInfo, ToolPreview } from "../../lib/protocol/permissions";

export type AlwaysOptionInput = Omit<AlwaysOption, "cwd"> & { cwd?: string | null };

/** What a tool's real implementation (and its checks before the approval) is handed. */
export interface ToolContext {
  /** The workspace folder; every path a tool touches must resolve inside it (see workspace-paths.ts). */
  workspace: string;
  /** Aborted when the run is stopped: a running command is killed. */
  signal: AbortSignal;
  /** Shows what the tool is doing now (a command's latest output); null clears it. */
  progress(text: string | null): void;
}

/**
 * A failure of a tool's real implementation the caller can act on (a file that does not exist, an
 * `old` text found twice): recorded as the tool's result `{ error }`, thrown as ToolFailed by `rt.tool`.
 */
export class ToolFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolFailure";
  }
}

/**
 * A tool an agent function uses through `rt.tool`: what it is called, whether it needs a person's
 * approval by default, how its input is checked, and how a call is shown and matched by rules.
 */
export interface ToolDefinition<S extends z.ZodType = z.ZodType, F = undefined, R extends JsonValue = JsonValue> {
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
  /**
   * For a tool from outside (whose `inputSchema` takes any object): its input's JSON Schema, which
   * lets an answerer edit a call before allowing it. Catalogue tools are edited by `inputSchema`.
   */
  editSchema?: Record<string, unknown>;
  /** The folders (absolute) the asker of a tool from outside declared: an edited absolute path must fall under one. */
  editRoots?: readonly string[];
  /** What rules match: the command, the path … */
  subject(input: z.output<S>): string;
  /** The folder the call runs in, relative to the workspace (`.` its top folder), for a tool that has one (shell): rules may be limited to it. */
  workingFolder?(input: z.output<S>): string;
  /**
   * Checks that touch the filesystem, run in the worker before the approval is asked (a call that
   * would leave the workspace never reaches a card: throw PathRefused), and what the preview needs
   * from it (write_file: the file's real current content).
   */
  inspect?(input: z.output<S>, ctx: ToolContext): Promise<F>;
  /**
   * A readable preview of the call for the approval card, from the input and what `inspect` found
   * (undefined when the caller of `rt.tool` brings its own implementation: no checks on disk then).
   */
  preview(input: z.output<S>, facts: F | undefined): ToolPreview;
  /**
   * What of `inspect`'s facts the approval stands on, kept in the run's journal so that the tool,
   * when it runs (even in a run resumed after a park), can refuse to act on something that changed
   * since the card was shown: write_file's file hash. None: nothing to compare.
   */
  stamp?(facts: F): JsonValue;
  /**
   * Does it for real, once approved: what `rt.tool(name, input)` runs when the caller brings no
   * implementation. Checks its paths again right before acting. `approved` is the `stamp` of what
   * the approval was asked on (undefined for a tool without one): a change since is refused rather
   * than acted on. Throws ToolFailure or PathRefused for a failure the caller should read.
   */
  run(input: z.output<S>, ctx: ToolContext, approved: JsonValue | undefined): Promise<R>;
  /** The rules an "Allow always" answer may add: exactly this call first, then at most one wider rule the person may choose. */
  alwaysOptions(input: z.output<S>): AlwaysOptionInput[];
  /** The approval's prompt, one line: "Run `npm test`?". By default "Use <tool> on <subject>?". */
  prompt?(input: z.output<S>): string;
}

/** A tool of the catalogue (its input type erased). */
// Each tool's facts (what `inspect` hands `preview` and `stamp`) are its own.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the facts type sits in parameters and results alike: only any erases it.
export type Tool = ToolDefinition<z.ZodType, any>;

export function defineTool<S extends z.ZodType, R extends JsonValue, F = undefined>(tool: ToolDefinition<S, F, R>): ToolDefinition<S, F, R> {
  return tool;
}

/** What the server and clients know of a tool. */
export const toolInfo = (tool: Tool): ToolInfo => ({ name: tool.name, description: tool.description, dangerous: tool.dangerous, subjectKind: tool.subjectKind });

/** Text shortened to `max` characters, an ellipsis marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
