import { describe, expect, it } from "vitest";
import { alwaysHint, approvalTitle, clip, fallbackText, inlineCode, ownerLabel, previewShowsSubject, subjectLabel } from "./approval";
import { approvalSpec, shellSpec } from "./fixtures/approvals";

describe("approval wording", () => {
  it("an owner reads as words: kebab, snake, dotted and camel case", () => {
    expect(ownerLabel("order-coffee")).toBe("Order coffee");
    expect(ownerLabel("coffee_helper")).toBe("Coffee helper");
    expect(ownerLabel("test.approve")).toBe("Test approve");
    expect(ownerLabel("writeReport")).toBe("Write report");
    expect(ownerLabel("chat")).toBe("Chat");
    expect(ownerLabel("CI")).toBe("CI");
    expect(ownerLabel("---")).toBe("---");
  });

  it("the title says who wants to run which tool", () => {
    expect(approvalTitle("coffee-helper", "shell")).toBe("Coffee helper wants to run shell");
  });

  it("Allow always names the rule it adds in the option's words, or nothing when none is offered", () => {
    const always = [
      { pattern: "docs/a.md", cwd: null, label: "`docs/a.md` exactly" },
      { pattern: "docs/**", cwd: null, label: "any file under `docs/`" },
    ];
    expect(alwaysHint({ tool: "write_file", always })).toBe("Allow write_file: `docs/a.md` exactly, in this chat");
    expect(alwaysHint({ tool: "write_file", always }, 1)).toBe("Allow write_file: any file under `docs/`, in this chat");
    expect(alwaysHint({ tool: "shell", always: [] })).toBeNull();
  });

  it("subject labels, the fallback and clipping", () => {
    expect([subjectLabel("path"), subjectLabel("command"), subjectLabel("text")]).toEqual(["Path", "Command", "Subject"]);
    expect([fallbackText("deny"), fallbackText("allow")]).toEqual(["then denied", "then allowed"]);
    expect(clip("a\n  b")).toBe("a b");
    expect(clip("x".repeat(200), 10)).toBe(`${"x".repeat(9)}…`);
  });

  it("a subject line only when the preview does not already show it", () => {
    expect(previewShowsSubject(approvalSpec())).toBe(true);
    expect(previewShowsSubject(shellSpec())).toBe(true);
    expect(previewShowsSubject(approvalSpec({ subject: "docs/other.md" }))).toBe(false);
    expect(previewShowsSubject(approvalSpec({ preview: { type: "list", items: ["docs/notes.md"] } }))).toBe(false);
  });

  it("a prompt's backticks mark inline code; an unpaired one stays", () => {
    expect(inlineCode("Run `npm test`?")).toEqual([
      { code: false, text: "Run " },
      { code: true, text: "npm test" },
      { code: false, text: "?" },
    ]);
    expect(inlineCode("Write docs/a.md?")).toEqual([{ code: false, text: "Write docs/a.md?" }]);
    expect(inlineCode("a ` b")).toEqual([{ code: false, text: "a ` b" }]);
  });
});
