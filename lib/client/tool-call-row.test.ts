import { describe, expect, it } from "vitest";
import { approvalQuestion } from "./fixtures/approvals";
import { formatToolInput, summariseResult, toolCallResult, toolStepOf, type JournalEntry } from "./tool-call-row";

const entry = (over: Partial<JournalEntry>): JournalEntry => ({ seq: 0, kind: "step", name: "model", questionId: null, childRunId: null, output: null, ...over });
const q = approvalQuestion({ id: "q7", seq: 3, status: "answered", answer: "once" });
const journal = [
  entry({ seq: 2, kind: "step", name: "model", output: { text: "" } }),
  entry({ seq: 3, kind: "question", name: "approval", questionId: "q7", output: "once" }),
  entry({ seq: 4, kind: "step", name: "write_file docs/notes.md", output: { path: "docs/notes.md", written: true, lines: 12 } }),
];

describe("a tool call's row, expanded", () => {
  it("shows the input the approval carries as pretty JSON", () => {
    expect(formatToolInput(q)).toContain("path: docs/notes.md");
  });

  it("finds the result in the step right after the approval", () => {
    expect(toolStepOf(q, journal)?.seq).toBe(4);
    expect(toolCallResult(q, journal, true)).toEqual({ state: "done", summary: "12 lines written", detail: "path: docs/notes.md\nwritten: true\nlines: 12" });
  });

  it("a denied call did not run; an allowed one without a step is running, or ended without a result", () => {
    expect(toolCallResult(approvalQuestion({ id: "q7", seq: 3, status: "declined", feedback: "no" }), journal, true)).toMatchObject({ state: "not_run", summary: null });
    const early = journal.slice(0, 2);
    expect(toolCallResult(q, early, false)).toMatchObject({ state: "running", detail: "Running: no result yet." });
    expect(toolCallResult(q, early, true)).toMatchObject({ state: "not_run", detail: expect.stringMatching(/ended before/) });
  });

  it("shows a multi-line output as it reads, indented under its key", () => {
    const shell = [...journal.slice(0, 2), entry({ seq: 4, kind: "step", output: { exitCode: 0, output: "$ npm test\nTests 148 passed" } })];
    expect(toolCallResult(q, shell, true).detail).toBe("exitCode: 0\noutput:\n  $ npm test\n  Tests 148 passed");
  });

  it("summarises results in one line", () => {
    expect(summariseResult({ exitCode: 0, output: "ok" })).toBe("exit code 0");
    expect(summariseResult({ path: "README.md", content: "a\nb" })).toBe("2 lines read");
    expect(summariseResult({ written: true, lines: 1 })).toBe("1 line written");
    expect(summariseResult("done")).toBe("done");
    expect(summariseResult({ error: "`docs/x.md` does not exist." })).toBe("failed: `docs/x.md` does not exist.");
    expect(summariseResult({ exitCode: null, timedOut: true, stopped: false })).toBe("timed out");
    expect(summariseResult({ exitCode: null, timedOut: false, stopped: true })).toBe("stopped");
    expect(summariseResult({ path: ".", entries: ["a/", "b.md"], truncated: false })).toBe("2 entries");
    expect(summariseResult({ path: ".", query: "x", matches: ["a.md:1: x"], truncated: true })).toBe("1 match (more not shown)");
    expect(summariseResult({ other: "x".repeat(100) }).length).toBeLessThanOrEqual(60);
  });
});
