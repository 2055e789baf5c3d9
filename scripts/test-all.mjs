#!/usr/bin/env node
// `npm test`: every part runs even when an earlier one failed (a part that needs the build does
// not run when the build failed), then one summary; the exit code is 1 when any part did not pass.
// `npm test -- unit integration` runs only the parts named. Long versions: `npm run test:long`.
// PARLEY_TEST_RESULTS=<file> also writes the outcome as JSON (parts, failed tests, file times).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { inOrder } from "./test-all/in-order.mjs";
import { runLanes } from "./test-all/lanes.mjs";
import { fromPlaywright, fromVitest, slowest } from "./test-all/reports.mjs";
import { countsFrom, summarize } from "./test-all/summary.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const reports = mkdtempSync(path.join(tmpdir(), "parley-test-reports-"));
const vitest = (report, ...args) => [
  process.execPath,
  path.join(root, "node_modules/vitest/vitest.mjs"),
  "run",
  ...args,
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${path.join(reports, report)}`,
];
const node = (...args) => [process.execPath, ...args];

/**
 * The parts. `needs`: parts that must pass first. `report`: the JSON report the part's runner writes
 * (its failed tests and each file's time).
 */
const PARTS = [
  // The build `npm install` made is reused when no source changed since (scripts/build-stamp.mjs). Next's own type check is
  // left to the typecheck part, which runs after the build so that it sees the route types the build writes (.next/types).
  { name: "build", command: node(path.join(root, "scripts/build.mjs"), "--if-stale") },
  { name: "typecheck", command: node(path.join(root, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", "."), needs: ["build"] },
  // Type-aware: its program includes the route types the build writes.
  { name: "lint", command: node(path.join(root, "node_modules/eslint/bin/eslint.js"), ".", "--max-warnings", "0"), needs: ["build"] },
  // The code as Prettier writes it (`npm run format` fixes it).
  { name: "format", command: node(path.join(root, "node_modules/prettier/bin/prettier.cjs"), "--check", ".") },
  { name: "unit", command: vitest("unit.json", "lib/", "workers/", "components/", "app/", "scripts/"), report: { file: "unit.json", read: fromVitest } },
  {
    name: "integration",
    command: vitest("integration.json", "tests/", "--project", "integration", "--project", "integration, alone"),
    needs: ["build"],
    report: { file: "integration.json", read: fromVitest },
  },
  // Several nodes over PostgreSQL and Redis (each file skips, saying why, without them): beside the static checks, not on the integration lane.
  { name: "cluster", command: vitest("cluster.json", "--project", "cluster"), needs: ["build"], report: { file: "cluster.json", read: fromVitest } },
  // Skips with its reason (exit 0) when no PostgreSQL answers.
  {
    name: "pg",
    command: node(path.join(root, "scripts/test-pg.mjs"), "--reporter=default", "--reporter=json", `--outputFile.json=${path.join(reports, "pg.json")}`),
    skippedWhen: /^test:pg skipped: (.*)$/m,
    report: { file: "pg.json", read: fromVitest },
  },
  {
    name: "e2e",
    command: node(path.join(root, "node_modules/@playwright/test/cli.js"), "test"),
    env: { PARLEY_E2E_JSON: path.join(reports, "e2e.json") },
    needs: ["build"],
    // On a quiet machine: once the other lane is done too.
    after: ["pg", "cluster"],
    report: { file: "e2e.json", read: (json) => fromPlaywright(json, "e2e") },
  },
];

/**
 * Lanes run at once, a lane's parts one after another (scripts/test-all/lanes.mjs). The integration
 * tests leave a third of two cores idle (they wait on servers): the static checks, the unit tests and
 * the PostgreSQL suites fill it, a type or lint error showing within the first two minutes. The
 * browser tests keep both cores busy and come last, on a quiet machine: beside another part their
 * tabs' waits and polls stretch and cost more CPU, and the specs that time keys need it quiet.
 */
const LANES = [
  ["build", "integration", "e2e"],
  ["format", "typecheck", "lint", "unit", "cluster", "pg"],
];

const named = process.argv.slice(2);
const unknown = named.filter((n) => !PARTS.some((p) => p.name === n));
if (unknown.length) {
  console.error(`Unknown part(s): ${unknown.join(", ")}. The parts: ${PARTS.map((p) => p.name).join(", ")}.`);
  process.exit(2);
}
const chosen = named.length ? PARTS.filter((p) => named.includes(p.name)) : PARTS;
const lanes = LANES.map((lane) => lane.filter((name) => chosen.some((p) => p.name === name))).filter((lane) => lane.length);

/** Runs a part with its output going to `output` (see in-order.mjs); keeps the end of it for the counts. */
function run(part, output) {
  return new Promise((resolve) => {
    const child = spawn(part.command[0], part.command.slice(1), {
      cwd: root,
      stdio: ["inherit", "pipe", "pipe"],
      env: { ...process.env, ...part.env, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? "1" : "0") },
    });
    let tail = "";
    const keep = (chunk) => (tail = (tail + chunk).slice(-20_000));
    child.stdout.on("data", (d) => (output.write("out", d), keep(d)));
    child.stderr.on("data", (d) => (output.write("err", d), keep(d)));
    child.once("error", (err) => resolve({ code: 1, output: `${tail}\n${err.message}` }));
    child.once("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output: tail }));
  });
}

/** The part's report, or none when its runner wrote none (it did not start, or was killed). */
function readReport(part) {
  if (!part.report) return { files: [], failures: [] };
  try {
    return part.report.read(JSON.parse(readFileSync(path.join(reports, part.report.file), "utf8")), root);
  } catch {
    return { files: [], failures: [] };
  }
}

const terminal = { write: (stream, chunk) => (stream === "err" ? process.stderr : process.stdout).write(chunk) };
const show = inOrder(terminal);
const shown = (arg) => (arg === process.execPath ? "node" : arg.startsWith(root) ? path.relative(root, arg) : arg);

// Ctrl-C reaches the parts' processes (same process group); the runner stops once they end.
let interrupted = false;
process.on("SIGINT", () => (interrupted = true));

/** Runs one part and tells how it went. */
async function runPart(part) {
  const output = show.open();
  output.write("out", `\n=== ${part.name}: ${part.command.map(shown).join(" ")}\n\n`);
  const started = Date.now();
  const { code, output: tail } = await run(part, output);
  output.end();
  const skipped = code === 0 && part.skippedWhen?.exec(tail);
  const { files, failures } = readReport(part);
  return {
    name: part.name,
    result: code === 0 ? (skipped ? "skipped" : "passed") : "failed",
    ms: Date.now() - started,
    counts: countsFrom(tail),
    note: skipped ? skipped[1] : undefined,
    files: files.map((f) => ({ part: part.name, ...f })),
    failures: failures.map((f) => ({ part: part.name, ...f })),
  };
}

const began = Date.now();
const outcomes = await runLanes(chosen, lanes, runPart, () => (interrupted ? "interrupted" : null));
const totalMs = Date.now() - began;
const files = outcomes.flatMap((o) => o.files ?? []);
const { ok, text } = summarize(outcomes, totalMs, slowest(files, 5));
console.log(`\n${text}`);

if (process.env.PARLEY_TEST_RESULTS) {
  const failures = outcomes.flatMap((o) =>
    o.failures?.length
      ? o.failures
      : o.result === "failed" || o.result === "not run"
        ? [{ part: o.name, file: "", test: `the ${o.name} part ${o.result === "failed" ? "failed" : `did not run (${o.note})`}` }]
        : [],
  );
  const parts = outcomes.map(({ name, result, ms, counts, note }) => ({ name, result, ms, counts, note }));
  writeFileSync(process.env.PARLEY_TEST_RESULTS, JSON.stringify({ ok, totalMs, parts, failures, files }, null, 2));
}
rmSync(reports, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
