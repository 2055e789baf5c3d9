// The one table `npm test` ends with, and the counts read from each part's own output.

/** Counts from a Vitest or Playwright summary in `output` ("12 passed | 1 failed", "3 skipped"), or null when there is none. */
export function countsFrom(output) {
  // eslint-disable-next-line no-control-regex -- strips the colours' escape sequences
  const text = output.replace(/\x1b\[[0-9;]*m/g, "");
  // Vitest: "      Tests  120 passed | 2 skipped (122)"; Playwright: "  51 passed (3.2m)" and "  1 failed" on lines of their own.
  const vitest = [...text.matchAll(/^\s*Tests\s+(.+?)\s*\(\d+\)\s*$/gm)].at(-1);
  const lines = vitest ? [vitest[1]] : text.split("\n").filter((l) => /^\s*\d+ (passed|failed|flaky|skipped|did not run)\b/.test(l));
  const counts = {};
  for (const line of lines) for (const [, n, what] of line.matchAll(/(\d+) (passed|failed|flaky|skipped|todo|did not run)/g)) counts[what] = (counts[what] ?? 0) + Number(n);
  return Object.keys(counts).length ? counts : null;
}

/** "1 m 05 s" / "42.0 s". */
export function formatDuration(ms) {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, "0")} s`;
}

const RESULT_TEXT = { passed: "passed", failed: "FAILED", skipped: "skipped", "not run": "not run" };

/**
 * The summary of the parts run: `{ name, result: "passed"|"failed"|"skipped"|"not run", ms?, counts?, note? }`,
 * then the slowest test files (`{ part, file, ms }`, slowest first) when there are any.
 * Ends with the total time and the verdict; `ok` is false when any part failed or could not run.
 */
export function summarize(parts, totalMs, slowestFiles = []) {
  const rows = parts.map((p) => [
    p.name,
    RESULT_TEXT[p.result] ?? p.result,
    p.ms === undefined ? "" : formatDuration(p.ms),
    [
      p.counts &&
        Object.entries(p.counts)
          .map(([what, n]) => `${n} ${what}`)
          .join(", "),
      p.note,
    ]
      .filter(Boolean)
      .join("; "),
  ]);
  const header = ["part", "result", "time", "details"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  const bad = parts.filter((p) => p.result === "failed" || p.result === "not run");
  const ok = bad.length === 0;
  const verdict = ok ? "all parts passed" : `${bad.length} of ${parts.length} part(s) did not pass: ${bad.map((p) => p.name).join(", ")}`;
  const slow = slowestFiles.length ? ["", "slowest test files:", ...slowestFiles.map((f) => `  ${formatDuration(f.ms).padStart(8)}  ${f.part}  ${f.file}`)] : [];
  const text = [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line), ...slow, "", `total ${formatDuration(totalMs)}: ${verdict}`].join("\n");
  return { ok, text };
}
