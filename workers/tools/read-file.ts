import { z } from "zod";
import { clip, defineTool } from "./define";
import { pathAlwaysOptions, ProjectPathSchema } from "./patterns";

/** Reads a file of the project: not dangerous, allowed unless a rule says otherwise. */
export const readFileTool = defineTool({
  name: "read_file",
  description: "Reads a file of the project.",
  dangerous: false,
  subjectKind: "path",
  inputSchema: z.strictObject({ path: ProjectPathSchema }),
  subject: (input) => input.path,
  preview: (input) => ({ type: "text", text: `Read ${input.path}` }),
  alwaysOptions: (input) => pathAlwaysOptions(input.path),
  prompt: (input) => `Read ${clip(input.path, 200)}?`,
});
