import { describe, expect, it } from "vitest";
import { formFields, parseFormSchema, type FormField } from "../protocol/forms";
import { inputJsonSchema } from "../../workers/tools/edited-call";
import { editFileTool, shellTool, writeFileTool, type Tool } from "../../workers/tools";
import { takesLines } from "./field-lines";

/** A tool's fields as its approval's Edit form reads them. */
function fieldsOf(tool: Tool): Record<string, FormField> {
  const parsed = parseFormSchema(inputJsonSchema(tool));
  if (!parsed.ok) throw new Error(parsed.error);
  return Object.fromEntries(formFields(parsed.schema).map((f) => [f.name, f]));
}

const field = (over: Partial<FormField>): FormField => ({
  name: "x",
  kind: "text",
  label: "X",
  description: null,
  required: false,
  format: null,
  minLength: null,
  maxLength: null,
  minimum: null,
  maximum: null,
  minItems: null,
  maxItems: null,
  choices: [],
  default: undefined,
  ...over,
});

describe("which fields of a tool's input take lines", () => {
  it("write_file: the path is one line, the content several", () => {
    const { path, content } = fieldsOf(writeFileTool);
    expect(takesLines(path!, "docs/changelog.md", "tool")).toBe(false);
    expect(takesLines(content!, "one line", "tool")).toBe(true);
  });

  it("edit_file: the path is one line, the old and new text several", () => {
    const { path, old, new: replacement } = fieldsOf(editFileTool);
    expect(takesLines(path!, "src/a.ts", "tool")).toBe(false);
    expect(takesLines(old!, "a", "tool")).toBe(true);
    expect(takesLines(replacement!, "b", "tool")).toBe(true);
  });

  it("shell: the command and its folder are one line; a command that already holds a line break keeps its lines", () => {
    const { command, cwd } = fieldsOf(shellTool);
    expect(takesLines(command!, "npm test", "tool")).toBe(false);
    expect(takesLines(cwd!, "", "tool")).toBe(false);
    expect(takesLines(command!, "cd docs\nls", "tool")).toBe(true);
  });

  it("an outside tool's file text takes lines by its name, however it is bounded; its other strings by their bound", () => {
    expect(takesLines(field({ name: "new_string" }), "x", "tool")).toBe(true);
    expect(takesLines(field({ name: "content", maxLength: 50 }), "x", "tool")).toBe(true);
    expect(takesLines(field({ name: "file_path" }), "/a/b", "tool")).toBe(false);
    expect(takesLines(field({ name: "notes", maxLength: 1_000 }), "", "tool")).toBe(false);
    expect(takesLines(field({ name: "body", maxLength: 100_000 }), "", "tool")).toBe(true);
  });
});

describe("which fields of a form take lines", () => {
  it("a paragraph's bound takes lines; a short one, a format, a number or a choice is one line", () => {
    expect(takesLines(field({ maxLength: 500 }), "", "form")).toBe(true);
    expect(takesLines(field({ maxLength: 60 }), "", "form")).toBe(false);
    expect(takesLines(field({}), "", "form")).toBe(false);
    expect(takesLines(field({ maxLength: 500, format: "uri" }), "", "form")).toBe(false);
    expect(takesLines(field({ kind: "integer" }), "3", "form")).toBe(false);
    expect(takesLines(field({ kind: "choice" }), "a", "form")).toBe(false);
  });

  it("a value that already holds a line break takes lines, whatever the schema", () => {
    expect(takesLines(field({ maxLength: 60 }), "first\nsecond", "form")).toBe(true);
    expect(takesLines(field({ format: "email" }), "a\r\nb", "tool")).toBe(true);
  });
});
