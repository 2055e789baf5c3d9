export type PartResult = "passed" | "failed" | "skipped" | "not run";
export type Counts = Partial<Record<"passed" | "failed" | "flaky" | "skipped" | "todo" | "did not run", number>>;
export interface PartOutcome {
  name: string;
  result: PartResult;
  ms?: number;
  counts?: Counts | null;
  note?: string;
}
export function countsFrom(output: string): Counts | null;
export function formatDuration(ms: number): string;
export interface SlowFile {
  part: string;
  file: string;
  ms: number;
}
export function summarize(parts: PartOutcome[], totalMs: number, slowestFiles?: SlowFile[]): { ok: boolean; text: string };
