import { describe, expect, it } from "vitest";
import { fromPlaywright, fromVitest, slowest } from "./reports.mjs";

describe("fromVitest", () => {
  it("reads each file's time and each failed test, and a file that failed without a test", () => {
    const report = {
      testResults: [
        {
          name: "/repo/tests/a.test.ts",
          startTime: 1_000,
          endTime: 3_500.4,
          status: "failed",
          message: "",
          assertionResults: [
            { fullName: "a works", status: "passed" },
            { fullName: "a › breaks", status: "failed" },
          ],
        },
        { name: "/repo/lib/b.test.ts", startTime: 0, endTime: 10, status: "failed", message: "\u001b[31mCannot find module './gone'\u001b[39m\n    at x", assertionResults: [] },
        { name: "/repo/lib/c.test.ts", startTime: 5, endTime: 6, status: "passed", assertionResults: [{ fullName: "c", status: "skipped" }] },
      ],
    };
    expect(fromVitest(report, "/repo")).toEqual({
      files: [
        { file: "tests/a.test.ts", ms: 2_500 },
        { file: "lib/b.test.ts", ms: 10 },
        { file: "lib/c.test.ts", ms: 1 },
      ],
      failures: [
        { file: "tests/a.test.ts", test: "a › breaks" },
        { file: "lib/b.test.ts", test: "Cannot find module './gone'" },
      ],
    });
  });
});

describe("fromPlaywright", () => {
  it("adds up a file's tests in every suite and names each test that did not go as expected with its project and titles", () => {
    const test = (status: string, ...durations: number[]) => ({ projectName: "chromium", status, results: durations.map((duration) => ({ duration })) });
    const report = {
      suites: [
        {
          title: "a.spec.ts",
          file: "a.spec.ts",
          specs: [{ title: "top", file: "a.spec.ts", tests: [test("expected", 1_000)] }],
          suites: [{ title: "group", file: "a.spec.ts", specs: [{ title: "inner", file: "a.spec.ts", tests: [test("unexpected", 2_000), test("flaky", 300, 400)] }] }],
        },
        { title: "b.spec.ts", file: "b.spec.ts", specs: [{ title: "b", file: "b.spec.ts", tests: [test("skipped")] }] },
      ],
      errors: [{ message: "Error: the web server did not start\n  at …" }],
    };
    expect(fromPlaywright(report, "e2e")).toEqual({
      files: [
        { file: "e2e/a.spec.ts", ms: 3_700 },
        { file: "e2e/b.spec.ts", ms: 0 },
      ],
      failures: [
        { file: "e2e/a.spec.ts", test: "[chromium] › group › inner" },
        { file: "e2e/a.spec.ts", test: "[chromium] › group › inner" },
        { file: "e2e", test: "Error: the web server did not start" },
      ],
    });
  });
});

describe("slowest", () => {
  it("gives the slowest first, at most as many as asked", () => {
    const files = [5, 50, 1, 20].map((ms) => ({ part: "unit", file: `f${ms}`, ms }));
    expect(slowest(files, 2).map((f) => f.file)).toEqual(["f50", "f20"]);
    expect(files.map((f) => f.ms)).toEqual([5, 50, 1, 20]);
  });
});
