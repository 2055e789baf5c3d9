import { parsePatch } from "diff";
import { describe, expect, it } from "vitest";
import { ApprovalSpecSchema, MAX_PATTERN_CHARS, ToolInfoSchema, ToolPreviewSchema } from "../../lib/protocol/permissions";
import { sandboxMode } from "../../lib/sandbox/sandbox-mode";
import { escapePattern, fileDiff, findTool, readFileTool, shellTool, toolCatalogue, tools, writeFileTool } from "./index";
import { sandboxSettingEachTest } from "./tool-harness";

describe("the tool catalogue", () => {
  it("lists every tool once with its public info", () => {
    expect(toolCatalogue.map((t) => t.name)).toEqual(["shell", "write_file", "edit_file", "read_file", "list_files", "search_files"]);
    for (const info of toolCatalogue) expect(ToolInfoSchema.parse(info)).toEqual(info);
    expect(toolCatalogue.find((t) => t.name === "shell")?.dangerous).toBe(true);
    expect(toolCatalogue.find((t) => t.name === "write_file")?.dangerous).toBe(true);
    expect(toolCatalogue.find((t) => t.name === "edit_file")?.dangerous).toBe(true);
    for (const name of ["read_file", "list_files", "search_files"]) expect(toolCatalogue.find((t) => t.name === name)?.dangerous).toBe(false);
    // Every path tool is matched as a path: the built-in deny rules (.git/**, **/.env*) apply to it.
    expect(tools.filter((t) => t.subjectKind === "path").map((t) => t.name)).toEqual(["write_file", "edit_file", "read_file", "list_files", "search_files"]);
    expect(findTool("shell")).toBe(shellTool);
    expect(findTool("nope")).toBeUndefined();
  });

  it("builds a valid approval spec for every tool", () => {
    const inputs = {
      shell: { command: "npm test" },
      write_file: { path: "docs/a.md", content: "x\n" },
      edit_file: { path: "docs/a.md", old: "x", new: "y" },
      read_file: { path: "docs/a.md" },
      list_files: { path: "docs" },
      search_files: { query: "TODO" },
    };
    for (const tool of tools) {
      const input = tool.inputSchema.parse(inputs[tool.name as keyof typeof inputs]);
      const spec = {
        tool: tool.name,
        input,
        preview: tool.preview(input, tool.name === "edit_file" ? { kind: "text", content: "x\n", hash: "h" } : undefined),
        subject: tool.subject(input),
        subjectKind: tool.subjectKind,
        always: tool.alwaysOptions(input),
        dangerous: tool.dangerous,
      };
      expect(ApprovalSpecSchema.safeParse(spec).success).toBe(true);
    }
  });
});

describe("shell", () => {
  const parse = (command: string) => shellTool.inputSchema.parse({ command });
  // Rules cover a command only where the system bounds it: the sandbox turned off on purpose reads as one here.
  sandboxSettingEachTest(() => ({ PARLEY_SANDBOX: "off" }));

  it("takes the command as subject and preview, and asks to run it", () => {
    const input = parse("  npm test -- --run  ");
    expect(shellTool.subject(input)).toBe("npm test -- --run");
    expect(shellTool.subjectKind).toBe("command");
    expect(shellTool.preview(input, undefined)).toEqual({ type: "command", command: "npm test -- --run", bound: "opted-out" });
    expect(shellTool.preview(shellTool.inputSchema.parse({ command: "ls", cwd: "docs/" }), undefined)).toEqual({ type: "command", command: "ls", cwd: "docs", bound: "opted-out" });
    expect(shellTool.prompt!(input)).toBe("Run `npm test -- --run`? It runs code from the workspace: whatever the agent may change there (a rule that lets it write files) runs with it.");
  });

  it.each([
    ["npm test", "npm test"],
    ["echo [a]*", "echo \\[a\\]\\*"],
  ])("allows %j always as exactly %j, in its folder", (command, pattern) => {
    expect(shellTool.alwaysOptions(parse(command))[0]).toMatchObject({ pattern, cwd: "." });
  });

  it("offers no Allow always for a command too long for a pattern", () => {
    expect(shellTool.alwaysOptions(parse(`echo ${"*".repeat(500)}`))).toEqual([]);
    expect(MAX_PATTERN_CHARS).toBe(200);
  });

  it("refuses an empty command or unknown fields", () => {
    expect(shellTool.inputSchema.safeParse({ command: "   " }).success).toBe(false);
    expect(shellTool.inputSchema.safeParse({ command: "ls", sudo: true }).success).toBe(false);
  });
});

describe("shell: what its card says the command can reach, and what Allow always it offers", () => {
  const input = (network?: boolean) => shellTool.inputSchema.parse({ command: "npm test", ...(network === undefined ? {} : { network }) });
  const bwrap = sandboxMode({ ...process.env, PARLEY_SANDBOX: undefined });

  describe("sandboxed", () => {
    sandboxSettingEachTest(() => ({}));
    it.skipIf(bwrap.kind !== "bwrap")("no network: sandboxed, with both Allow always options; network: said so, asked every time", () => {
      expect(shellTool.preview(input(), undefined)).toMatchObject({ bound: "sandboxed" });
      expect(shellTool.alwaysOptions(input()).map((o) => o.pattern)).toEqual(["npm test", "npm test *"]);
      expect(shellTool.preview(input(true), undefined)).toMatchObject({ bound: "network" });
      expect(shellTool.prompt!(input(true))).toMatch(/^Run `npm test` with network access\? It runs code from the workspace/);
      expect(shellTool.alwaysOptions(input(true))).toEqual([]);
    });
  });

  describe("bubblewrap missing", () => {
    sandboxSettingEachTest(() => ({ PARLEY_BWRAP: "/nonexistent/bwrap" }));
    it("not sandboxed, and no Allow always: every command is asked for", () => {
      expect(shellTool.preview(input(), undefined)).toMatchObject({ bound: "unsandboxed" });
      expect(shellTool.alwaysOptions(input())).toEqual([]);
      expect(shellTool.alwaysOptions(input(true))).toEqual([]);
    });
  });

  describe("PARLEY_SANDBOX=off", () => {
    sandboxSettingEachTest(() => ({ PARLEY_SANDBOX: "off" }));
    it("not sandboxed, said so; the opt-out keeps the rules", () => {
      expect(shellTool.preview(input(true), undefined)).toMatchObject({ bound: "opted-out" });
      expect(shellTool.alwaysOptions(input()).map((o) => o.pattern)).toEqual(["npm test", "npm test *"]);
    });
  });

  it("names on the card the argument that loads other code, which no wider rule covers", () => {
    expect(shellTool.prompt!(shellTool.inputSchema.parse({ command: "npm test -- -r ./src/pre.cjs" }))).toBe(
      "Run `npm test -- -r ./src/pre.cjs`? `-r` loads other code: no rule for its program with any further arguments covers it.",
    );
    expect(shellTool.prompt!(shellTool.inputSchema.parse({ command: "ls -la" }))).toBe("Run `ls -la`?");
  });

  it.each(["npm test", "npm run build", "node --test", "make", "pytest -q", "python3 app.py", "go test ./..."])("says that %j runs code from the workspace", (command) => {
    expect(shellTool.prompt!(shellTool.inputSchema.parse({ command }))).toBe(
      `Run \`${command}\`? It runs code from the workspace: whatever the agent may change there (a rule that lets it write files) runs with it.`,
    );
  });

  it("refuses a network that is not true or false", () => {
    expect(shellTool.inputSchema.safeParse({ command: "ls", network: "yes" }).success).toBe(false);
  });
});

describe("write_file", () => {
  it("takes the normalised path as subject and asks to write it", () => {
    const input = writeFileTool.inputSchema.parse({ path: "./docs//changelog.md", content: "a\n" });
    expect(input.path).toBe("docs/changelog.md");
    expect(writeFileTool.subject(input)).toBe("docs/changelog.md");
    expect(writeFileTool.subjectKind).toBe("path");
    expect(writeFileTool.prompt!(input)).toBe("Write docs/changelog.md?");
  });

  it.each([
    ["docs/changelog.md", ["docs/changelog.md", "docs/**"]],
    ["docs/notes/2024/a.md", ["docs/notes/2024/a.md", "docs/notes/2024/**"]],
    ["README.md", ["README.md"]],
    ["docs/[draft]/a.md", ["docs/\\[draft\\]/a.md", "docs/\\[draft\\]/**"]],
  ])("allows %j always as exactly it, or the folder it is in", (path, patterns) => {
    expect(writeFileTool.alwaysOptions(writeFileTool.inputSchema.parse({ path, content: "" })).map((o) => o.pattern)).toEqual(patterns);
  });

  it.each(["/etc/passwd", "../secret", "docs/../../x", "C:/x", ".", ""])("refuses the path %j", (path) => {
    expect(writeFileTool.inputSchema.safeParse({ path, content: "" }).success).toBe(false);
  });

  it("refuses a `previous` from the caller: the diff is against the file as it is", () => {
    expect(writeFileTool.inputSchema.safeParse({ path: "a.md", previous: "x", content: "y" }).success).toBe(false);
  });

  it("previews a unified diff from the file's current content to the new one", () => {
    const input = writeFileTool.inputSchema.parse({ path: "docs/changelog.md", content: "# Changelog\n\n## 0.2.0\n- Approvals\n\n## 0.1.0\n- First\n" });
    const preview = writeFileTool.preview(input, { kind: "text", content: "# Changelog\n\n## 0.1.0\n- First\n", hash: "h" });
    expect(ToolPreviewSchema.parse(preview)).toEqual(preview);
    expect(preview).toEqual({
      type: "diff",
      path: "docs/changelog.md",
      diff: ["--- a/docs/changelog.md", "+++ b/docs/changelog.md", "@@ -1,4 +1,7 @@", " # Changelog", " ", "+## 0.2.0", "+- Approvals", "+", " ## 0.1.0", " - First", ""].join("\n"),
    });
  });

  it("diffs a new file from /dev/null", () => {
    expect(fileDiff("docs/a.md", undefined, "one\ntwo\n")).toBe(["--- /dev/null", "+++ b/docs/a.md", "@@ -0,0 +1,2 @@", "+one", "+two", ""].join("\n"));
  });

  it("cuts a diff longer than the preview allows at a line, saying how much is left out", () => {
    const content = Array.from({ length: 5_000 }, (_, i) => `line ${i}\n`).join("");
    const diff = fileDiff("big.txt", undefined, content, 2_000);
    expect(diff.length).toBeLessThanOrEqual(2_000);
    const lines = diff.trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(/^\\ … \d+ more lines not shown$/);
    const shown = lines.filter((l) => l.startsWith("+line")).length;
    expect(Number(lines.at(-1)!.match(/(\d+) more/)![1])).toBe(5_000 - shown);
    // Still a diff the client can read: its first hunk parses.
    expect(parsePatch(diff)[0]!.newFileName).toBe("b/big.txt");
  });
});

describe("read_file", () => {
  it("is not dangerous, takes the path as subject, and allows its folder always", () => {
    const input = readFileTool.inputSchema.parse({ path: "docs/a.md" });
    expect(readFileTool.dangerous).toBe(false);
    expect(readFileTool.subject(input)).toBe("docs/a.md");
    expect(readFileTool.alwaysOptions(input).map((o) => o.pattern)).toEqual(["docs/a.md", "docs/**"]);
    expect(readFileTool.preview(input, undefined)).toEqual({ type: "text", text: "Read docs/a.md" });
  });
});

describe("escapePattern", () => {
  it("escapes every glob character so the text matches itself", () => {
    expect(escapePattern("a*b?c[d]{e}(f)!g+h@i|j\\k")).toBe("a\\*b\\?c\\[d\\]\\{e\\}\\(f\\)\\!g\\+h\\@i\\|j\\\\k");
  });
});
