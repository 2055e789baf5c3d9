export interface RunResult {
  ok: boolean;
  totalMs: number;
  parts: { name: string; result: string; ms?: number }[];
  failures: { part: string; file: string; test: string }[];
}
export function stressReport(results: RunResult[], formatDuration: (ms: number) => string): { ok: boolean; text: string };
