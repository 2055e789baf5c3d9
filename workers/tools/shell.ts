import { z } from "zod";
import { clip, defineTool } from "./define";
import { commandAlwaysOptions } from "./patterns";

/** Runs a shell command. In the offline demo the function simulates it: nothing real runs. */
export const shellTool = defineTool({
  name: "shell",
  description: "Runs a shell command in the project folder.",
  dangerous: true,
  subjectKind: "command",
  inputSchema: z.strictObject({
    command: z.string().trim().min(1, "A command may not be empty").max(10_000),
    /** The folder it runs in, relative to the project; the project's folder when absent. */
    cwd: z.string().trim().min(1).max(1_000).optional(),
  }),
  subject: (input) => input.command,
  preview: (input) => ({ type: "command", command: input.command, ...(input.cwd ? { cwd: input.cwd } : {}) }),
  workingFolder: (input) => input.cwd ?? ".",
  alwaysOptions: (input) => commandAlwaysOptions(input.command, input.cwd ?? "."),
  prompt: (input) => `Run \`${clip(input.command.replace(/\s+/g, " "), 200)}\`?`,
});
