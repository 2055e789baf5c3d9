#!/usr/bin/env node
// `npm test`: every part runs even when an earlier one failed (a part that needs the build does
// not run when the build failed), then one summary; the exit code is 1 when any part did not pass.
// `npm test -- unit integration` runs only the parts named. Long versions: `npm run test:long`.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { inOrder } from "./test-all/in-order.mjs";
import { countsFrom, summarize } from "./test-all/summary.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const vitest = path.join(root, "node_modules/vitest/vitest.mjs");
const node = (...args) => [process.execPath, ...args];

// Parts with the same `together` that follow one another run at once (each reads the code and
// writes nothing the others read); their output is still shown one part after the other.
const PARTS = [
  // Next's own type check is left to the typecheck part, which runs after the build so that it sees the route types the build writes (.next/types).
  { name: "build", command: ["npm", "run", "build"], env: { PARLEY_BUILD_TYPECHECKED: "1" } },
  { name: "typecheck", command: node(path.join(root, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", "."), together: "static" },
  { name: "lint", command: node(path.join(root, "node_modules/eslint/bin/eslint.js"), ".", "--max-warnings", "0"), together: "static" },
  // The code as Prettier writes it (`npm run format` fixes it).
  { name: "format", command: node(path.join(root, "node_modules/prettier/bin/prettier.cjs"), "--check", "."), together: "static" },
  { name: "unit", command: node(vitest, "run", "lib/", "workers/", "components/", "app/", "scripts/") },
  { name: "integration", command: node(vitest, "run", "tests/"), needsBuild: true },
  // Skips with its reason (exit 0) when no PostgreSQL answers.
  { name: "pg", command: node(path.join(root, "scripts/test-pg.mjs")), skippedWhen: /^test:pg skipped: (.*)$/m },
  { name: "e2e", command: node(path.join(root, "node_modules/@playwright/test/cli.js"), "test"), needsBuild: true },
];

const named = process.argv.slice(2);
const unknown = named.filter((n) => !PARTS.some((p) => p.name === n));
if (unknown.length) {
  console.error(`Unknown part(s): ${unknown.join(", ")}. The parts: ${PARTS.map((p) => p.name).join(", ")}.`);
  process.exit(2);
}
const chosen = named.length ? PARTS.filter((p) => named.includes(p.name)) : PARTS;

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

const terminal = { write: (stream, chunk) => (stream === "err" ? process.stderr : process.stdout).write(chunk) };
const shown = (arg) => (arg === process.execPath ? "node" : arg.startsWith(root) ? path.relative(root, arg) : arg);

// Ctrl-C reaches the part's processes (same process group); the runner stops after the part ends.
let interrupted = false;
process.on("SIGINT", () => (interrupted = true));

let buildFailed = false;
/** Runs one part (or says why not) and tells how it went. */
async function runPart(part, output) {
  const notRun = interrupted ? "interrupted" : part.needsBuild && buildFailed ? "build failed" : null;
  if (notRun) {
    output.end();
    return { name: part.name, result: "not run", note: notRun };
  }
  output.write("out", `\n=== ${part.name}: ${part.command.map(shown).join(" ")}\n\n`);
  const started = Date.now();
  const { code, output: tail } = await run(part, output);
  output.end();
  const skipped = code === 0 && part.skippedWhen?.exec(tail);
  if (part.name === "build" && code !== 0) buildFailed = true;
  return { name: part.name, result: code === 0 ? (skipped ? "skipped" : "passed") : "failed", ms: Date.now() - started, counts: countsFrom(tail), note: skipped ? skipped[1] : undefined };
}

/** The chosen parts in runs: parts that may go together and follow one another share one. */
const runs = [];
for (const part of chosen) {
  const last = runs.at(-1);
  if (part.together && last?.[0].together === part.together) last.push(part);
  else runs.push([part]);
}

const began = Date.now();
const outcomes = [];
for (const parts of runs) {
  const outputs = inOrder(parts.length, terminal);
  outcomes.push(...(await Promise.all(parts.map((part, i) => runPart(part, outputs[i])))));
}

const { ok, text } = summarize(outcomes, Date.now() - began);
console.log(`\n${text}`);
process.exit(ok ? 0 : 1);
