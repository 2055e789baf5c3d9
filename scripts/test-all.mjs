#!/usr/bin/env node
// `npm test`: every part runs even when an earlier one failed (a part that needs the build does
// not run when the build failed), then one summary; the exit code is 1 when any part did not pass.
// `npm test -- unit integration` runs only the parts named. Long versions: `npm run test:long`.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { countsFrom, summarize } from "./test-all/summary.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const vitest = path.join(root, "node_modules/vitest/vitest.mjs");
const node = (...args) => [process.execPath, ...args];

const PARTS = [
  { name: "typecheck", command: node(path.join(root, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", ".") },
  { name: "lint", command: node(path.join(root, "node_modules/eslint/bin/eslint.js"), ".", "--max-warnings", "0") },
  // The code as Prettier writes it (`npm run format` fixes it).
  { name: "format", command: node(path.join(root, "node_modules/prettier/bin/prettier.cjs"), "--check", ".") },
  { name: "build", command: ["npm", "run", "build"] },
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

/** Runs a part with its output shown as it comes; keeps the end of it for the counts. */
function run(part) {
  return new Promise((resolve) => {
    const child = spawn(part.command[0], part.command.slice(1), {
      cwd: root,
      stdio: ["inherit", "pipe", "pipe"],
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? "1" : "0") },
    });
    let tail = "";
    const keep = (chunk) => (tail = (tail + chunk).slice(-20_000));
    child.stdout.on("data", (d) => (process.stdout.write(d), keep(d)));
    child.stderr.on("data", (d) => (process.stderr.write(d), keep(d)));
    child.once("error", (err) => resolve({ code: 1, output: `${tail}\n${err.message}` }));
    child.once("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output: tail }));
  });
}

// Ctrl-C reaches the part's processes (same process group); the runner stops after the part ends.
let interrupted = false;
process.on("SIGINT", () => (interrupted = true));

const began = Date.now();
const outcomes = [];
let buildFailed = false;
for (const part of chosen) {
  if (interrupted) {
    outcomes.push({ name: part.name, result: "not run", note: "interrupted" });
    continue;
  }
  if (part.needsBuild && buildFailed) {
    outcomes.push({ name: part.name, result: "not run", note: "build failed" });
    continue;
  }
  console.log(`\n=== ${part.name}: ${part.command.map((a) => (a === process.execPath ? "node" : a.startsWith(root) ? path.relative(root, a) : a)).join(" ")}\n`);
  const started = Date.now();
  const { code, output } = await run(part);
  const skipped = code === 0 && part.skippedWhen?.exec(output);
  const outcome = { name: part.name, result: code === 0 ? (skipped ? "skipped" : "passed") : "failed", ms: Date.now() - started, counts: countsFrom(output), note: skipped ? skipped[1] : undefined };
  if (part.name === "build" && code !== 0) buildFailed = true;
  outcomes.push(outcome);
}

const { ok, text } = summarize(outcomes, Date.now() - began);
console.log(`\n${text}`);
process.exit(ok ? 0 : 1);
