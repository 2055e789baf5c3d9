// What the test runners' JSON reports say: each test file's time and each failed test, for the
// summary's slowest files and for `npm run test:stress`'s list of failures.
import path from "node:path";

/**
 * From a Vitest JSON report (`--reporter=json`): `{ files: [{ file, ms }], failures: [{ file, test }] }`,
 * paths relative to `root`. A file that failed without a failed test (it did not load) is a failure too.
 */
export function fromVitest(report, root) {
  const files = [];
  const failures = [];
  for (const result of report.testResults ?? []) {
    const file = path.relative(root, result.name);
    files.push({ file, ms: Math.max(0, Math.round(result.endTime - result.startTime)) });
    const failed = (result.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failed) failures.push({ file, test: a.fullName || a.title });
    if (result.status === "failed" && failed.length === 0) failures.push({ file, test: firstLine(result.message) || "the file failed" });
  }
  return { files, failures };
}

/**
 * From a Playwright JSON report (the `json` reporter): each file's time is the sum of its tests'
 * (a file's tests may run side by side); a test that did not go as expected (failed, timed out,
 * flaky) is a failure. Errors outside any test (a global setup that threw) are failures too.
 */
export function fromPlaywright(report, testDir) {
  const perFile = new Map();
  const failures = [];
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      const file = path.join(testDir, spec.file ?? suite.file ?? "");
      for (const test of spec.tests ?? []) {
        const ms = (test.results ?? []).reduce((sum, r) => sum + (r.duration ?? 0), 0);
        perFile.set(file, (perFile.get(file) ?? 0) + ms);
        if (test.status === "unexpected" || test.status === "flaky") failures.push({ file, test: [`[${test.projectName}]`, ...titles, spec.title].join(" › ") });
      }
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  for (const error of report.errors ?? []) failures.push({ file: testDir, test: firstLine(error.message) || "an error outside the tests" });
  return { files: [...perFile].map(([file, ms]) => ({ file, ms })), failures };
}

/** The `count` slowest of `files` (`{ part, file, ms }`), slowest first. */
export function slowest(files, count) {
  return [...files].sort((a, b) => b.ms - a.ms).slice(0, count);
}

// eslint-disable-next-line no-control-regex -- the colours' escape sequences
const COLOURS = /\x1b\[[0-9;]*m/g;

function firstLine(text) {
  return String(text ?? "")
    .replace(COLOURS, "")
    .trim()
    .split("\n")[0];
}
