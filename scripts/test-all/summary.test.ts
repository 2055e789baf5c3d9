import { describe, expect, it } from "vitest";
import { countsFrom, formatDuration, summarize } from "./summary.mjs";

describe("countsFrom", () => {
  it("reads Vitest's Tests line (colours and all), not the Test Files line", () => {
    const out =
      "\x1b[2m Test Files \x1b[22m 1 failed | 40 passed (41)\n\x1b[2m      Tests \x1b[22m \x1b[1m\x1b[31m2 failed\x1b[39m\x1b[22m | \x1b[1m\x1b[32m310 passed\x1b[39m\x1b[22m | 3 skipped (315)\n";
    expect(countsFrom(out)).toEqual({ failed: 2, passed: 310, skipped: 3 });
  });
  it("reads Playwright's closing lines", () => {
    expect(countsFrom("  ✓  51 [chromium] › e2e/x.spec.ts:3:1 › y (2.1s)\n\n  1 failed\n    [chromium] › e2e/x.spec.ts:9:1 › z\n  2 flaky\n  48 passed (6.1m)\n")).toEqual({
      failed: 1,
      flaky: 2,
      passed: 48,
    });
  });
  it("is null for output with no test summary (tsc, next build)", () => {
    expect(countsFrom("✓ Compiled successfully in 33.1s\n")).toBeNull();
  });
});

describe("summarize", () => {
  it("lists every part with its time and counts, and fails when one failed or could not run", () => {
    const { ok, text } = summarize(
      [
        { name: "typecheck", result: "passed", ms: 41_000 },
        { name: "build", result: "failed", ms: 95_500 },
        { name: "unit", result: "passed", ms: 8_200, counts: { passed: 310, skipped: 3 } },
        { name: "integration", result: "not run", note: "build failed" },
        { name: "pg", result: "skipped", ms: 300, note: "no PostgreSQL at 127.0.0.1:5432" },
      ],
      145_000,
    );
    expect(ok).toBe(false);
    expect(text.split("\n")).toEqual([
      "part         result   time      details",
      "-----------  -------  --------  -------------------------------",
      "typecheck    passed   41.0 s",
      "build        FAILED   1 m 36 s",
      "unit         passed   8.2 s     310 passed, 3 skipped",
      "integration  not run            build failed",
      "pg           skipped  0.3 s     no PostgreSQL at 127.0.0.1:5432",
      "",
      "total 2 m 25 s: 2 of 5 part(s) did not pass: build, integration",
    ]);
  });
  it("lists the slowest test files, slowest first, before the verdict", () => {
    const { text } = summarize([{ name: "e2e", result: "passed", ms: 300_000 }], 300_000, [
      { part: "e2e", file: "e2e/ui-states.spec.ts", ms: 95_000 },
      { part: "integration", file: "tests/worker.integration.test.ts", ms: 22_800 },
    ]);
    expect(text.split("\n").slice(3)).toEqual([
      "",
      "slowest test files:",
      "  1 m 35 s  e2e  e2e/ui-states.spec.ts",
      "    22.8 s  integration  tests/worker.integration.test.ts",
      "",
      "total 5 m 00 s: all parts passed",
    ]);
  });
  it("passes when every part passed or was skipped", () => {
    expect(
      summarize(
        [
          { name: "unit", result: "passed", ms: 1 },
          { name: "pg", result: "skipped", ms: 1 },
        ],
        2,
      ).ok,
    ).toBe(true);
  });
  it("formats durations", () => {
    expect([formatDuration(999), formatDuration(59_940), formatDuration(60_000), formatDuration(905_000)]).toEqual(["1.0 s", "59.9 s", "1 m 00 s", "15 m 05 s"]);
  });
});
