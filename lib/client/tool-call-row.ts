import type { RunDetail } from "../protocol/entities";
import type { Question } from "../protocol/question";
import { clip } from "./approval";

/**
 * The expanded part of a tool call's row in the transcript: the input the tool got (the approval
 * carries it) and what it returned. The result is the tool's step in the run's journal: `rt.tool`
 * claims the approval and the tool's step together, so the step sits right after the question.
 * Pure, so the wording is tested without a browser.
 */
export type JournalEntry = RunDetail["journal"][number];

export interface ToolCallResult {
  /** "done": the tool returned; "not_run": denied, rejected or stopped before it ran; "running": no result yet. */
  state: "done" | "not_run" | "running";
  /** One line for the collapsed row ("exit code 0", "12 lines written"); null when there is none. */
  summary: string | null;
  /** The result in full (pretty JSON or text), or a sentence saying why there is none. */
  detail: string;
}

/** The tool's input as the row shows it expanded: pretty JSON, bounded. */
export function formatToolInput(q: Question, max = 4_000): string {
  return bounded(pretty(q.approval?.input ?? null), max);
}

/** The input the tool ran with when the person edited it before allowing ("Edit and allow"); null when they did not. */
export function formatEditedInput(q: Question, max = 4_000): string | null {
  return q.editedInput ? bounded(pretty(q.editedInput), max) : null;
}

/** The journal entry holding the tool's result: the step right after the approval question. */
export function toolStepOf(q: Question, journal: ReadonlyArray<JournalEntry>): JournalEntry | null {
  const question = journal.find((e) => e.kind === "question" && e.questionId === q.id);
  const seq = (question?.seq ?? q.seq) + 1;
  return journal.find((e) => e.seq === seq && e.kind === "step") ?? null;
}

/** What a call returned, from its approval and the run's journal (the run's status says whether more can come). */
export function toolCallResult(q: Question, journal: ReadonlyArray<JournalEntry>, runFinished: boolean, max = 4_000): ToolCallResult {
  const allowed = q.status === "answered" || (q.status === "timed_out" && q.approval?.fallback === "allow");
  if (!allowed) return { state: "not_run", summary: null, detail: "Not run: the call was not allowed." };
  const step = toolStepOf(q, journal);
  if (!step || step.output === null || step.output === undefined) {
    return runFinished ? { state: "not_run", summary: null, detail: "No result: the run ended before the tool finished." } : { state: "running", summary: null, detail: "Running: no result yet." };
  }
  return { state: "done", summary: summariseResult(step.output), detail: bounded(pretty(step.output), max) };
}

/** One short line for a result: a failure, an exit code (or a timeout), a written file, lines read, entries or matches found, else the value clipped. */
export function summariseResult(output: unknown): string {
  if (typeof output === "string") return clip(output, 60) || "(empty)";
  if (output && typeof output === "object" && !Array.isArray(output)) {
    const o = output as Record<string, unknown>;
    // A real tool's failure is recorded as its only field, `error` (workers/runtime/tool-call.ts).
    if (typeof o.error === "string" && Object.keys(o).length === 1) return clip(`failed: ${o.error}`, 60);
    if (o.timedOut === true) return "timed out";
    if (o.stopped === true) return "stopped";
    if (typeof o.exitCode === "number") return `exit code ${o.exitCode}`;
    if (o.written === true) return typeof o.lines === "number" ? `${o.lines} ${o.lines === 1 ? "line" : "lines"} written` : "written";
    if (typeof o.content === "string") {
      const lines = o.content.split("\n").length;
      return `${lines} ${lines === 1 ? "line" : "lines"} read`;
    }
    const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}${o.truncated === true ? " (more not shown)" : ""}`;
    if (Array.isArray(o.entries)) return count(o.entries.length, "entry", "entries");
    if (Array.isArray(o.matches)) return count(o.matches.length, "match", "matches");
  }
  return clip(JSON.stringify(output) ?? "null", 60);
}

/** An object as `key: value` lines, multi-line strings (a command's output, a file) shown as they read, indented. */
function pretty(value: unknown): string {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    return Object.entries(value as Record<string, unknown>)
      .map(([key, v]) => (typeof v === "string" && v.includes("\n") ? `${key}:\n${v.replace(/\n$/, "").replace(/^/gm, "  ")}` : `${key}: ${typeof v === "string" ? v : JSON.stringify(v)}`))
      .join("\n");
  }
  return JSON.stringify(value, null, 2) ?? "null";
}

function bounded(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
