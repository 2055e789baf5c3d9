import { describe, expect, it } from "vitest";
import { decide, matches } from "../../lib/server/permissions/rule-decide";
import { externalTool, subjectKindOf } from "./external-tool";

/** A tool outside Parley, as its approval and the rules read it. */
const call = (name: string, input: Record<string, unknown>) => {
  const tool = externalTool(name, { subjectKind: subjectKindOf(input) });
  return { tool, subject: tool.subject(input), options: tool.alwaysOptions(input), prompt: tool.prompt!(input), preview: tool.preview(input, undefined) };
};

describe("externalTool", () => {
  it("reads a command as a command: rules match it word by word, and Allow always offers it exactly, then its words with any arguments", () => {
    const bash = call("Bash", { command: "npm test -- --run", description: "tests" });
    expect(bash.tool.subjectKind).toBe("command");
    expect(bash.prompt).toBe("Run `npm test -- --run`?");
    expect(bash.preview).toEqual({ type: "command", command: "npm test -- --run" });
    expect(bash.options.map((o) => o.pattern)).toEqual(["npm test -- --run", "npm test *"]);
    const at = { tool: "Bash", subject: bash.subject, subjectKind: "command" as const };
    expect(matches({ tool: "Bash", pattern: "npm test *", decision: "allow" }, at)).toBe(true);
    expect(matches({ tool: "Bash", pattern: "npm test *", decision: "allow" }, { ...at, subject: "npm test; rm -rf /" })).toBe(false);
    expect(decide([{ tool: "Bash", pattern: "rm *", decision: "deny" }], { ...at, subject: "rm -rf /" }, true).decision).toBe("deny");
  });

  it("reads a file path as a path, with the edit as a diff; anything else as its JSON, always dangerous", () => {
    const edit = call("Edit", { file_path: "src/a.ts", old_string: "a", new_string: "b" });
    expect(edit.tool.subjectKind).toBe("path");
    expect(edit.subject).toBe("src/a.ts");
    expect(edit.preview).toMatchObject({ type: "diff", path: "src/a.ts", diff: expect.stringContaining("+b") });
    const issue = call("mcp__github__create_issue", { title: "x", repo: "a/b" });
    expect(issue.tool.subjectKind).toBe("text");
    expect(issue.subject).toBe('{"repo":"a/b","title":"x"}');
    expect(issue.prompt).toBe("Use mcp__github__create_issue?");
    const text = { tool: issue.tool.name, subject: issue.subject, subjectKind: "text" as const };
    expect(issue.options.map((o) => o.label)).toEqual(["exactly this input", "every call of mcp__github__create_issue"]);
    expect(matches({ tool: text.tool, pattern: issue.options[0]!.pattern, decision: "allow" }, text)).toBe(true);
    expect(matches({ tool: text.tool, pattern: issue.options[0]!.pattern, decision: "allow" }, { ...text, subject: '{"repo":"a/b","title":"y"}' })).toBe(false);
    expect(issue.options[1]!.pattern).toBe("*");
    expect(issue.tool.dangerous).toBe(true);
    expect(decide([], { tool: issue.tool.name, subject: issue.subject, subjectKind: "text" }, issue.tool.dangerous).decision).toBe("ask");
  });
});
