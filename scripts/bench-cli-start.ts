/**
 * How long `parley` takes to start and answer, as a person runs it (`node bin/parley.mjs …`, the
 * built CLI: run `npm run build` first), against the floor measured in the same run: `node -e 0`.
 * Each command runs N times (--samples, default 15) on a scratch database migrated here.
 *
 *   npm run bench:cli [-- --samples 30]
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { migrateDatabase } from "../lib/server/store/db/migrate";
import { fmt, machine, percentile, scratchDir } from "./bench-kit";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({ options: { samples: { type: "string", default: "15" } } });
const samples = Number(values.samples);
if (!existsSync(path.join(root, "dist/cli.js"))) throw new Error("No built CLI: run `npm run build` first (the CLI runs from dist/ after a build).");

const dir = scratchDir();
const databaseUrl = `file:${path.join(dir, "bench.db")}`;
await migrateDatabase(databaseUrl, path.join(root, "prisma/migrations"));
const env = { ...process.env, DATABASE_URL: databaseUrl, PARLEY_URL: "", PARLEY_TOKEN: "" };

/** Wall time (ms) of `node ...args`, which must succeed. */
function timed(args: string[]): number {
  const t = performance.now();
  const res = spawnSync(process.execPath, args, { cwd: root, env, encoding: "utf8" });
  const ms = performance.now() - t;
  if (res.status !== 0) throw new Error(`node ${args.join(" ")} failed (${res.status}): ${res.stderr}`);
  return ms;
}

const cases: Array<[string, string[]]> = [
  ["node -e 0 (the floor)", ["-e", "0"]],
  ["parley --help", ["bin/parley.mjs", "--help"]],
  ["parley sessions", ["bin/parley.mjs", "sessions"]],
  ["parley token list", ["bin/parley.mjs", "token", "list"]],
  ["parley pending", ["bin/parley.mjs", "pending"]],
];
const times = new Map<string, number[]>(cases.map(([label]) => [label, []]));
// Interleaved, so a busy moment of the machine weighs on every command alike.
for (const [, args] of cases) timed(args);
for (let i = 0; i < samples; i++) for (const [label, args] of cases) times.get(label)!.push(timed(args));

console.log(`parley start-up, ${samples} runs each (${machine()})`);
const floor = percentile(times.get(cases[0]![0])!, 50);
for (const [label] of cases) {
  const xs = times.get(label)!;
  const [p50, p95] = [percentile(xs, 50), percentile(xs, 95)];
  console.log(`  ${label.padEnd(24)} p50 ${fmt(p50, 0).padStart(6)} ms   p95 ${fmt(p95, 0).padStart(6)} ms   ×${fmt(p50 / floor, 1)} the floor`);
}
rmSync(dir, { recursive: true, force: true });
