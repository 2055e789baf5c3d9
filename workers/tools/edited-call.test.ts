import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import type { ApprovalSpec } from "../../lib/protocol/permissions";
import { checkReplySchema } from "../../lib/server/questions/reply-schema";
import { ToolFailed } from "../runtime";
import { defineTool } from "./define";
import { approvalEdit, inputJsonSchema, readEditedCall } from "./edited-call";
import { externalTool } from "./external-tool";
import { findTool, tools } from "./index";
import { toolRuntime, workspaceEachTest } from "./tool-harness";

const workspace = workspaceEachTest("parley-edit-", { "notes.md": "old\n" });
const ws = () => workspace.ws();

describe("what an approval offers to edit", () => {
  it("every catalogue tool's input schema is one the server checks edits against", () => {
    for (const tool of tools) {
      const schema = inputJsonSchema(tool);
      expect(schema, tool.name).not.toBeNull();
      expect(schema).not.toHaveProperty("$schema");
      expect(() => checkReplySchema(schema), tool.name).not.toThrow();
    }
  });

  it("a catalogue tool by its own schema, a tool from outside by the schema it brought, another tool not at all", () => {
    const shell = findTool("shell")!;
    expect(approvalEdit(shell, { command: "ls" }, { command: "ls" })).toEqual({ schema: inputJsonSchema(shell), reader: "catalogue" });
    const schema = { type: "object", properties: { command: { type: "string" } } };
    expect(approvalEdit(externalTool("Bash", { subjectKind: "command", editSchema: schema }), { command: "ls" }, { command: "ls" })).toEqual({ schema, reader: "outside" });
    expect(approvalEdit(externalTool("Bash", { subjectKind: "command" }), { command: "ls" }, { command: "ls" })).toBeNull();
    // The function's own tool, even named like a catalogue one: the server could not read an edit of it.
    const own = defineTool({ ...shell, name: "shell" });
    expect(approvalEdit(own, { command: "ls" }, { command: "ls" })).toBeNull();
  });

  it("nothing when the card shows a shortened input: an edit of it would not be the whole input", () => {
    const write = findTool("write_file")!;
    expect(approvalEdit(write, { path: "a", content: "x".repeat(50_000) }, { path: "a", content: "x… (49999 more characters)" })).toBeNull();
  });
});

describe("readEditedCall (the server's reading of an edited call)", () => {
  const spec = (over: Partial<ApprovalSpec>): ApprovalSpec => ({
    tool: "shell",
    input: { command: "npm test" },
    preview: { type: "command", command: "npm test" },
    subject: "npm test",
    subjectKind: "command",
    cwd: ".",
    always: [],
    dangerous: true,
    fallback: "deny",
    edit: { schema: {}, reader: "catalogue" },
    ...over,
  });

  it("reads a catalogue tool's edited call as the tool does: its subject and folder", () => {
    expect(readEditedCall(spec({}), { command: "npm test -- --run", cwd: "./web/" })).toEqual({ input: { command: "npm test -- --run", cwd: "web" }, subject: "npm test -- --run", cwd: "web" });
  });

  it("refuses an input the tool refuses (invalid_edit)", () => {
    expect(() => readEditedCall(spec({}), { command: "" })).toThrow(expect.objectContaining({ code: "invalid_edit" }));
  });

  it("reads a tool from outside by its subject kind", () => {
    const call = readEditedCall(spec({ tool: "Write", subjectKind: "path", edit: { schema: {}, reader: "outside" } }), { file_path: "src/a.ts", content: "x" });
    expect(call).toEqual({ input: { file_path: "src/a.ts", content: "x" }, subject: "src/a.ts", cwd: null });
  });
});

describe("a tool allowed with an edited input", () => {
  it("runs with the input the person edited, and says so to onEdited", async () => {
    const h = toolRuntime(ws(), (ask) => ({ input: { ...(ask.spec.approval!.input as object), content: "edited\n" } }));
    const edited: unknown[] = [];
    await h.rt.tool("write_file", { path: "notes.md", content: "agent's\n" }, undefined, { onEdited: (input) => edited.push(input) });
    expect(readFileSync(path.join(ws(), "notes.md"), "utf8")).toBe("edited\n");
    expect(edited).toEqual([{ path: "notes.md", content: "edited\n" }]);
    expect(h.asks()[0]!.spec.approval!.edit).toMatchObject({ reader: "catalogue" });
  });

  it("still refuses to act on a file changed since the card when the path is the one shown", async () => {
    const h = toolRuntime(ws(), () => {
      writeFileSync(path.join(ws(), "notes.md"), "changed meanwhile\n");
      return { input: { path: "notes.md", content: "edited\n" } };
    });
    await expect(h.rt.tool("write_file", { path: "notes.md", content: "agent's\n" })).rejects.toBeInstanceOf(ToolFailed);
    expect(readFileSync(path.join(ws(), "notes.md"), "utf8")).toBe("changed meanwhile\n");
  });

  it("an edit to another path writes there (the checks of the first path do not stand for it)", async () => {
    const h = toolRuntime(ws(), () => ({ input: { path: "other.md", content: "edited\n" } }));
    await h.rt.tool("write_file", { path: "notes.md", content: "agent's\n" });
    expect(readFileSync(path.join(ws(), "other.md"), "utf8")).toBe("edited\n");
    expect(readFileSync(path.join(ws(), "notes.md"), "utf8")).toBe("old\n");
  });

  it("an edited input its tool refuses fails the call; nothing runs", async () => {
    const h = toolRuntime(ws(), () => ({ input: { path: "notes.md" } }));
    await expect(h.rt.tool("write_file", { path: "notes.md", content: "agent's\n" })).rejects.toThrow(/edited input is not valid/);
    expect(readFileSync(path.join(ws(), "notes.md"), "utf8")).toBe("old\n");
  });

  it("a caller's own implementation gets the edited input", async () => {
    const tool = externalTool("deploy", { subjectKind: "text", editSchema: { type: "object", properties: { env: { type: "string" } } } });
    const h = toolRuntime(ws(), () => ({ input: { env: "staging" } }));
    const got = await h.rt.tool(tool, { env: "prod" }, (input: Record<string, unknown>) => input.env as string);
    expect(got).toBe("staging");
    expect(z.object({ reader: z.literal("outside") }).safeParse(h.asks()[0]!.spec.approval!.edit).success).toBe(true);
  });
});
