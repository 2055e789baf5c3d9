// The closing report of `npm run test:stress`: each run's time per part, then every test that failed
// in any run and in which runs.

/**
 * `results`: one per run, as `npm test` writes them with PARLEY_TEST_RESULTS (`{ ok, totalMs, parts:
 * [{ name, result, ms }], failures: [{ part, file, test }] }`). `ok` only when no run listed a failure.
 */
export function stressReport(results, formatDuration) {
  const names = [...new Set(results.flatMap((r) => r.parts.map((p) => p.name)))];
  const header = ["run", ...names, "total"];
  const rows = results.map((r, i) => [
    String(i + 1),
    ...names.map((name) => {
      const part = r.parts.find((p) => p.name === name);
      if (!part) return "";
      return part.result === "passed" ? formatDuration(part.ms) : `${part.result}${part.ms === undefined ? "" : ` ${formatDuration(part.ms)}`}`;
    }),
    formatDuration(r.totalMs),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();

  const failed = new Map();
  results.forEach((r, i) => {
    for (const f of r.failures) {
      const key = [f.part, f.file, f.test].join("\u0000");
      const entry = failed.get(key) ?? { ...f, runs: [] };
      if (!entry.runs.includes(i + 1)) entry.runs.push(i + 1);
      failed.set(key, entry);
    }
  });
  const list = [...failed.values()];
  const verdict = list.length
    ? [`${list.length} test(s) failed in at least one of ${results.length} runs:`, ...list.map((f) => `  ${f.part}  ${f.file ? `${f.file}  ` : ""}${f.test}  (run ${f.runs.join(", ")})`)]
    : [`no test failed in ${results.length} runs`];
  return { ok: list.length === 0, text: [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line), "", ...verdict].join("\n") };
}
