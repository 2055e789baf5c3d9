import { realpathSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { clip, defineTool, ToolFailure, type ToolContext } from "./define";
import { commandPathProblem, relativePathWords } from "./command-paths";
import { boundByRules } from "../../lib/protocol/command-bound";
import { commandBound, sandboxMode } from "../../lib/sandbox/sandbox-mode";
import { codeLoadingArgument, runsWorkspaceCode } from "../../lib/permissions/command-risks";
import { shellWords } from "../../lib/permissions/shell-words";
import { commandAlwaysOptions } from "./patterns";
import { runCommand, type CommandResult } from "./run-command";
import { hiddenFromCommands } from "./sandbox-command";
import { FolderPathSchema, PathRefused, resolveInside } from "./workspace-paths";

export const DEFAULT_COMMAND_TIMEOUT_S = 120;
export const MAX_COMMAND_TIMEOUT_S = 600;
/** How often the running command's latest output line is shown (ms). */
const PROGRESS_EVERY_MS = 250;

/**
 * The real folder a command runs in, and every relative word of it that exists on disk, resolved:
 * a symlink among them leading out of the workspace refuses the command.
 */
async function checkOnDisk(input: { command: string; cwd?: string }, ctx: ToolContext): Promise<string> {
  const cwd = input.cwd ?? ".";
  const folder = await resolveInside(ctx.workspace, cwd);
  if (!folder.exists || !(await stat(folder.real)).isDirectory()) throw new ToolFailure(`The folder \`${cwd}\` does not exist in the workspace.`);
  for (const word of relativePathWords(input.command)) {
    const rel = path.posix.normalize(path.posix.join(cwd, word));
    try {
      await resolveInside(ctx.workspace, rel);
    } catch (err) {
      if (err instanceof PathRefused) throw new PathRefused(word, `\`${clip(word, 200)}\` leads outside the workspace (through a symbolic link): commands run only inside the workspace.`);
      throw err;
    }
  }
  return folder.real;
}

/** The latest non-empty line of a command's output, for the progress line. */
function lastLine(text: string): string {
  const lines = text.split(/\r?\n|\r/).filter((l) => l.trim());
  return lines.at(-1)?.trim() ?? "";
}

/** What the card of a command that runs code from the workspace adds to its question. */
export const WORKSPACE_CODE_NOTE = "It runs code from the workspace: whatever the agent may change there (a rule that lets it write files) runs with it.";

/** Why no wider rule covers this call, when an argument of it loads or runs other code: the card shows the argument. */
function loadingNote(command: string): string {
  const parsed = shellWords(command.trim());
  const loading = parsed.ok ? codeLoadingArgument(parsed.words) : null;
  if (loading) return ` \`${clip(loading.argument, 100)}\` ${loading.does}: no rule for its program with any further arguments covers it.`;
  // A chain, named: the test runner approved today runs whatever the agent may write tomorrow.
  if (parsed.ok && runsWorkspaceCode(parsed.words)) return ` ${WORKSPACE_CODE_NOTE}`;
  return "";
}

const boundOf = (input: { network?: boolean }) => commandBound(sandboxMode(), input.network === true);

/** How the command is sandboxed: none when bubblewrap cannot run here or PARLEY_SANDBOX=off (its card said so). */
function sandboxFor(input: { network?: boolean }, ctx: ToolContext) {
  const mode = sandboxMode();
  if (mode.kind !== "bwrap") return undefined;
  return { bwrap: mode.bwrap, workspace: realpathSync(ctx.workspace), network: input.network === true, hidden: hiddenFromCommands() };
}

export interface ShellResult extends CommandResult {
  command: string;
  cwd: string;
}

/** Runs a shell command in the workspace: dangerous, asks by default. */
export const shellTool = defineTool({
  name: "shell",
  description: `Runs a command with /bin/sh in the workspace (or cwd, a folder inside it), with a clean environment and a timeout (default ${DEFAULT_COMMAND_TIMEOUT_S} s), in a sandbox: it can change only the workspace, and has no network unless network is true (set it only for a command that must download or connect: a package install, a fetch). Paths in it must stay inside the workspace. Returns the exit code and the output (stdout and stderr; a long output keeps its beginning and end).`,
  dangerous: true,
  subjectKind: "command",
  inputSchema: z
    .strictObject({
      command: z.string().trim().min(1, "A command may not be empty").max(10_000),
      /** The folder it runs in, relative to the workspace; the workspace's folder when absent. */
      cwd: FolderPathSchema.meta({ title: "Folder", description: "Where it runs, relative to the workspace; its top folder when empty." }).optional(),
      timeoutSeconds: z.number().int().min(1).max(MAX_COMMAND_TIMEOUT_S).meta({ title: "Time limit (seconds)" }).optional(),
      /** Network access in the sandbox (none when absent). */
      network: z.boolean().meta({ title: "Network access", description: "Only for a command that must download or connect." }).optional(),
    })
    .superRefine((input, ctx) => {
      const problem = commandPathProblem(input.command, input.cwd ?? ".");
      if (problem) ctx.addIssue({ code: "custom", path: ["command"], message: problem });
    }),
  subject: (input) => input.command,
  inspect: async (input, ctx) => {
    await checkOnDisk(input, ctx);
  },
  preview: (input) => ({ type: "command", command: input.command, ...(input.cwd ? { cwd: input.cwd } : {}), bound: boundOf(input) }),
  workingFolder: (input) => input.cwd ?? ".",
  alwaysOptions: (input) => (boundByRules(boundOf(input)) ? commandAlwaysOptions(input.command, input.cwd ?? ".") : []),
  prompt: (input) => `Run \`${clip(input.command.replace(/\s+/g, " "), 200)}\`${input.network ? " with network access" : ""}?${loadingNote(input.command)}`,
  async run(input, ctx): Promise<ShellResult> {
    const cwd = await checkOnDisk(input, ctx);
    const head = `$ ${clip(input.command.replace(/\s+/g, " "), 100)}`;
    let recent = "";
    let shown = 0;
    let pending: NodeJS.Timeout | undefined;
    const show = () => {
      pending = undefined;
      shown = Date.now();
      const line = lastLine(recent);
      ctx.progress(clip(line ? `${head} · ${line}` : `${head} …`, 500));
    };
    show();
    try {
      const result = await runCommand({
        command: input.command,
        cwd,
        timeoutMs: (input.timeoutSeconds ?? DEFAULT_COMMAND_TIMEOUT_S) * 1_000,
        signal: ctx.signal,
        sandbox: sandboxFor(input, ctx),
        onOutput(text) {
          recent = (recent + text).slice(-2_000);
          if (pending) return;
          pending = setTimeout(show, Math.max(0, PROGRESS_EVERY_MS - (Date.now() - shown)));
        },
      });
      return { command: input.command, cwd: input.cwd ?? ".", ...result };
    } finally {
      clearTimeout(pending);
      ctx.progress(null);
    }
  },
});
