import { describe, expect, it } from "vitest";
import { createPatch, createTwoFilesPatch } from "diff";
import { numberDigits, parseUnifiedDiff } from "./unified-diff";
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

  it("numbers each line in two columns: removed lines by the old file only, added by the new only, context by both", () => {
    // The changelog demo: four lines added after line 2; the old line 3 is the new line 7.
    const before = "# Changelog\n\n## 0.1.0\n- Questions\n- Runs\n";
    const after = "# Changelog\n\n## 0.2.0\n- Approvals\n- Rules\n\n## 0.1.0\n- Questions\n- Runs\n";
    const columns = parseUnifiedDiff(createPatch("docs/changelog.md", before, after))
      .lines.filter((l) => l.kind !== "hunk" && l.kind !== "note")
      .map((l) => ("oldNo" in l ? [l.oldNo, l.newNo] : []));
    expect(columns).toEqual([
      [1, 1],
      [2, 2],
      [null, 3],
      [null, 4],
      [null, 5],
      [null, 6],
      [3, 7],
      [4, 8],
      [5, 9],
    ]);
  });

  it("the fixture's columns each count up from the hunk's start, never one side's numbers in the other's column", () => {
    const lines = parseUnifiedDiff(WRITE_DIFF).lines.flatMap((l) => (l.kind === "context" || l.kind === "add" || l.kind === "del" ? [l] : []));
    expect(lines.map((l) => l.oldNo).filter((n) => n !== null)).toEqual([1, 2, 3, 4]);
    expect(lines.map((l) => l.newNo).filter((n) => n !== null)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(lines.filter((l) => l.kind === "del").every((l) => l.newNo === null)).toBe(true);
    expect(lines.filter((l) => l.kind === "add").every((l) => l.oldNo === null)).toBe(true);
  });

  it("both number columns are as wide as the highest number; text without hunks has none", () => {
    expect(numberDigits(parseUnifiedDiff(WRITE_DIFF))).toBe(1);
    expect(numberDigits(parseUnifiedDiff(["@@ -98,2 +98,3 @@", " a", "+b", " c"].join("\n")))).toBe(3);
    expect(numberDigits(parseUnifiedDiff("+added\n-removed"))).toBe(0);
    expect(numberDigits(parseUnifiedDiff(""))).toBe(0);
  });
});
