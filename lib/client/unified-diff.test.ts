import { describe, expect, it } from "vitest";
import { createPatch, createTwoFilesPatch } from "diff";
import { parseUnifiedDiff } from "./unified-diff";
import { WRITE_DIFF } from "./fixtures/approvals";

const kinds = (text: string) => parseUnifiedDiff(text).lines.map((l) => `${l.kind}:${l.text}`);

describe("unified diff", () => {
  it("reads jsdiff's patch: headers are not content, lines are numbered on their side", () => {
    const parsed = parseUnifiedDiff(createTwoFilesPatch("docs/a.md", "docs/a.md", "one\ntwo\nthree\n", "one\n2\nthree\nfour\n"));
    expect(parsed.oldPath).toBe("docs/a.md");
    expect(parsed.newPath).toBe("docs/a.md");
    expect(parsed.lines).toEqual([
      { kind: "hunk", text: "@@ -1,3 +1,4 @@" },
      { kind: "context", text: "one", oldNo: 1, newNo: 1 },
      { kind: "del", text: "two", oldNo: 2, newNo: null },
      { kind: "add", text: "2", oldNo: null, newNo: 2 },
      { kind: "context", text: "three", oldNo: 3, newNo: 3 },
      { kind: "add", text: "four", oldNo: null, newNo: 4 },
    ]);
    expect([parsed.added, parsed.removed]).toEqual([2, 1]);
  });

  it("a new file is all additions from line 1, and the no-newline marker is a note", () => {
    const parsed = parseUnifiedDiff(createPatch("docs/new.md", "", "hello\nworld"));
    expect(parsed.lines.map((l) => l.kind)).toEqual(["hunk", "add", "add", "note"]);
    expect(parsed.lines[1]).toMatchObject({ text: "hello", newNo: 1 });
    expect(parsed.lines[3]).toEqual({ kind: "note", text: "No newline at end of file" });
  });

  it("inside a hunk its counts decide: a removed line that starts with '-- ' is removed, not a header", () => {
    const text = ["--- a/x.md", "+++ b/x.md", "@@ -1,2 +1,1 @@", "--- not a header", " keep", "+++ after the hunk is a header"].join("\n");
    const parsed = parseUnifiedDiff(text);
    expect(kinds(text)).toEqual(["hunk:@@ -1,2 +1,1 @@", "del:-- not a header", "context:keep"]);
    expect(parsed.oldPath).toBe("x.md");
    expect(parsed.newPath).toBe("after the hunk is a header");
  });

  it("several hunks restart the numbering; an empty context line without its space still counts", () => {
    const text = ["@@ -1,2 +1,2 @@", " a", "-b", "+B", "@@ -10,2 +10,2 @@", "", "-y", "+Y"].join("\n");
    const lines = parseUnifiedDiff(text).lines;
    expect(lines.filter((l) => l.kind === "hunk")).toHaveLength(2);
    expect(lines[5]).toEqual({ kind: "context", text: "", oldNo: 10, newNo: 10 });
    expect(lines[7]).toEqual({ kind: "add", text: "Y", oldNo: null, newNo: 11 });
  });

  it("the approval fixture: removals and additions counted, CRLF read as LF", () => {
    const parsed = parseUnifiedDiff(WRITE_DIFF.replace(/\n/g, "\r\n"));
    expect([parsed.added, parsed.removed]).toEqual([4, 2]);
    expect(parsed.lines.at(-1)).toEqual({ kind: "note", text: "No newline at end of file" });
  });

  it("text without hunk headers is read loosely, and empty text has no lines", () => {
    expect(kinds("+added\n-removed\nsame")).toEqual(["add:added", "del:removed", "context:same"]);
    expect(parseUnifiedDiff("+x").lines[0]).toMatchObject({ oldNo: null, newNo: null });
    expect(parseUnifiedDiff("").lines).toEqual([]);
    expect(parseUnifiedDiff("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x")).toMatchObject({ oldPath: null, newPath: "new.txt", added: 1 });
  });
});
