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

  it("Allow always names the rule it adds", () => {
    expect(alwaysHint({ tool: "write_file", alwaysPattern: "docs/**", subjectKind: "path" })).toBe("Allow write_file on docs/** in this chat");
    expect(alwaysHint({ tool: "shell", alwaysPattern: "npm test*", subjectKind: "command" })).toBe("Allow shell for npm test* in this chat");
    expect(alwaysHint({ tool: "shell", alwaysPattern: "*", subjectKind: "command" })).toBe("Allow every shell call in this chat");
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
