#!/usr/bin/env node
// `npm run test:stress`: the whole of `npm test`, three times back to back, beside a CPU burner that
// keeps one core busy; then every test that failed in any run, with the runs it failed in. A test
// that fails here fails by chance somewhere: find its cause, do not rerun it until green.
// `-- --runs N` changes the count; other arguments name parts, as for `npm test`.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { formatDuration } from "./test-all/summary.mjs";
import { stressReport } from "./test-all/stress-report.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
const parts = runsAt >= 0 ? args.filter((_, i) => i !== runsAt && i !== runsAt + 1) : args;
if (!Number.isInteger(runs) || runs < 1) {
  console.error("--runs takes a whole number from 1 up");
  process.exit(2);
}

// A busy loop in a process of its own: the scheduler gives it a core for as long as it runs.
const burner = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
const stopBurner = () => burner.exitCode === null && burner.kill("SIGKILL");
process.on("exit", stopBurner);
process.on("SIGINT", () => {
  stopBurner();
  process.exit(130);
});

const dir = mkdtempSync(path.join(tmpdir(), "parley-stress-"));
const results = [];
for (let run = 1; run <= runs; run++) {
  console.log(`\n##### test:stress run ${run} of ${runs}, beside a CPU burner (pid ${burner.pid})\n`);
  const file = path.join(dir, `run-${run}.json`);
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "scripts/test-all.mjs"), ...parts], { cwd: root, stdio: "inherit", env: { ...process.env, PARLEY_TEST_RESULTS: file } });
    child.once("close", (c) => resolve(c ?? 1));
  });
  let result;
  try {
    result = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    result = { ok: false, totalMs: 0, parts: [], failures: [{ part: "", file: "", test: `npm test ended (exit ${code}) without its results` }] };
  }
  results.push(result);
}
stopBurner();
rmSync(dir, { recursive: true, force: true });

const { ok, text } = stressReport(results, formatDuration);
console.log(`\n${text}`);
process.exit(ok ? 0 : 1);
