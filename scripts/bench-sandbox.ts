/**
 * What the sandbox costs a command: the time from start to exit of `true` run as the shell tool
 * runs it (run-command.ts), plain and inside bubblewrap with its limits, N times each, interleaved,
 * with the ratio of their medians. The floor is the plain run, measured in the same run.
 *
 *   npm run bench:sandbox [-- --samples 200]
 */
import { parseArgs } from "node:util";
import { sandboxMode, sandboxStartupLine } from "../lib/sandbox/sandbox-mode";
import { commandEnv, runCommand } from "../workers/tools/run-command";
import { fmt, machine, percentile, scratchDir } from "./bench-kit";

const { values } = parseArgs({ options: { samples: { type: "string", default: "100" } } });
const samples = Number(values.samples);
const mode = sandboxMode();
if (mode.kind !== "bwrap") throw new Error(`No sandbox to measure: ${sandboxStartupLine(mode)}`);

const workspace = scratchDir();
const env = commandEnv();
const signal = new AbortController().signal;

async function once(sandboxed: boolean): Promise<number> {
  const started = performance.now();
  const result = await runCommand({
    command: "true",
    cwd: workspace,
    timeoutMs: 30_000,
    signal,
    env,
    ...(sandboxed ? { sandbox: { bwrap: mode.kind === "bwrap" ? mode.bwrap : "", workspace, network: false } } : {}),
  });
  if (result.exitCode !== 0) throw new Error(`true exited ${result.exitCode}: ${result.output}`);
  return performance.now() - started;
}

const plain: number[] = [];
const boxed: number[] = [];
for (let i = 0; i < 5; i++) await Promise.all([once(false), once(true)]);
for (let i = 0; i < samples; i++) {
  plain.push(await once(false));
  boxed.push(await once(true));
}

console.log(`sandbox cost of a command's start and exit (\`true\`), ${samples} samples each, ${machine()}`);
for (const [name, xs] of [
  ["plain /bin/sh (the floor)", plain],
  ["bubblewrap sandbox, with limits", boxed],
] as const) {
  console.log(`  ${name.padEnd(34)} p50 ${fmt(percentile(xs, 50))} ms   p95 ${fmt(percentile(xs, 95))} ms`);
}
console.log(`  sandboxed / plain, p50: ${(percentile(boxed, 50) / percentile(plain, 50)).toFixed(1)}×`);
