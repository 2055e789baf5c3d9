import { describe, expect, it } from "vitest";
import { stressReport } from "./stress-report.mjs";
import { formatDuration } from "./summary.mjs";

describe("stressReport", () => {
  const run = (failures: { part: string; file: string; test: string }[], e2e = "passed") => ({
    ok: failures.length === 0,
    totalMs: 600_000,
    parts: [
      { name: "unit", result: "passed", ms: 50_000 },
      { name: "e2e", result: e2e, ms: 300_000 },
    ],
    failures,
  });

  it("lists each run's parts and says no test failed when none did", () => {
    const { ok, text } = stressReport([run([]), run([])], formatDuration);
    expect(ok).toBe(true);
    expect(text.split("\n")).toEqual([
      "run  unit    e2e       total",
      "---  ------  --------  ---------",
      "1    50.0 s  5 m 00 s  10 m 00 s",
      "2    50.0 s  5 m 00 s  10 m 00 s",
      "",
      "no test failed in 2 runs",
    ]);
  });

  it("lists every test that failed in any run once, with the runs it failed in", () => {
    const flaky = { part: "e2e", file: "e2e/a.spec.ts", test: "[chromium] › a" };
    const { ok, text } = stressReport([run([flaky], "failed"), run([]), run([flaky, { part: "build", file: "", test: "the build part failed" }], "failed")], formatDuration);
    expect(ok).toBe(false);
    expect(text.split("\n").slice(2)).toEqual([
      "1    50.0 s  failed 5 m 00 s  10 m 00 s",
      "2    50.0 s  5 m 00 s         10 m 00 s",
      "3    50.0 s  failed 5 m 00 s  10 m 00 s",
      "",
      "2 test(s) failed in at least one of 3 runs:",
      "  e2e  e2e/a.spec.ts  [chromium] › a  (run 1, 3)",
      "  build  the build part failed  (run 3)",
    ]);
  });
});
