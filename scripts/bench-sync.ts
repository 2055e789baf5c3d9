/**
 * The cost of SQLite's synchronous = FULL (the default) against NORMAL (PARLEY_DB_SYNC=NORMAL), on
 * the production build: reply → receipt latency, replies recorded per second, questions asked and
 * stored per second, each beside the floor (raw better-sqlite3 commits of one row with the same
 * setting on the same disk), printed as ratios. Prints figures; asserts nothing.
 * Usage: npm run build && npm run bench:sync [-- --samples 50 --questions 100]
 */
import { statfsSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { api, benchRoot, fmt, machine, percentile, rawCommits, until, withServer, type ServerProcess } from "./bench-kit";

const { values } = parseArgs({ options: { samples: { type: "string", default: "50" }, questions: { type: "string", default: "100" } } });
const SAMPLES = Number(values.samples);
const QUESTIONS = Number(values.questions);
type Mode = "FULL" | "NORMAL";

const rawFloor = (mode: Mode) => rawCommits(mode);

type Question = { id: string; runId: string };
type Health = { pendingQuestions: number; liveRuns: number };

async function startAsking(server: ServerProcess, sessionId: string, n: number) {
  const started = performance.now();
  await Promise.all(Array.from({ length: n }, (_, i) => api(server, `/api/sessions/${sessionId}/runs`, { function: "test.ask", input: { prompt: `Q${i}?`, options: ["ok"] } })));
  await until(async () => (await api<Health>(server, "/api/health")).pendingQuestions >= n, 600_000, 25);
  return n / ((performance.now() - started) / 1000);
}

async function appFigures(mode: Mode) {
  return withServer({ PARLEY_DB_SYNC: mode, PARLEY_PARK_AFTER_MS: "0" }, async (server) => {
    const session = await api<{ id: string }>(server, "/api/sessions", {});
    const questionsPerSecond = await startAsking(server, session.id, QUESTIONS);
    await until(async () => (await api<Health>(server, "/api/health")).liveRuns === 0);
    const pending = await api<Question[]>(server, `/api/questions?session_id=${session.id}`);
    const sequential = pending.slice(0, SAMPLES);
    const latencies: number[] = [];
    for (const q of sequential) {
      const sent = performance.now();
      await api(server, `/api/questions/${q.id}/reply`, { value: "ok" });
      latencies.push(performance.now() - sent);
      // Let the resumed run finish, so that the next sample measures the reply alone.
      await until(async () => (await api<Health>(server, "/api/health")).liveRuns === 0, 60_000, 10);
    }
    const together = pending.slice(SAMPLES);
    const started = performance.now();
    await Promise.all(together.map((q) => api(server, `/api/questions/${q.id}/reply`, { value: "ok" })));
    const repliesPerSecond = together.length / ((performance.now() - started) / 1000);
    return { latencies, repliesPerSecond, repliesTogether: together.length, questionsPerSecond };
  });
}

function filesystem(): string {
  const type = statfsSync(benchRoot()).type;
  return type === 0x01021994 ? "tmpfs: fsync costs nothing here, set PARLEY_BENCH_DIR to a disk" : type === 0xef53 ? "ext4" : `filesystem 0x${type.toString(16)}`;
}

console.log(`\nsynchronous = FULL (default) vs NORMAL (${machine()}; database on ${filesystem()}; load average ${fmt(loadavg()[0]!)})`);
// A B B A: each setting measured twice, around the other, so that drift in the machine's load hits both alike.
const order: Mode[] = ["FULL", "NORMAL", "NORMAL", "FULL"];
const raw: Record<Mode, ReturnType<typeof rawFloor>[]> = { FULL: [], NORMAL: [] };
const app: Record<Mode, Awaited<ReturnType<typeof appFigures>>[]> = { FULL: [], NORMAL: [] };
for (const m of order) raw[m].push(rawFloor(m));
for (const m of order) app[m].push(await appFigures(m));

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const figures = (m: Mode) => ({
  rawP50: percentile(
    raw[m].flatMap((r) => r.latencies),
    50,
  ),
  rawPerSecond: mean(raw[m].map((r) => r.perSecond)),
  p50: percentile(
    app[m].flatMap((a) => a.latencies),
    50,
  ),
  p95: percentile(
    app[m].flatMap((a) => a.latencies),
    95,
  ),
  repliesPerSecond: mean(app[m].map((a) => a.repliesPerSecond)),
  questionsPerSecond: mean(app[m].map((a) => a.questionsPerSecond)),
});
const full = figures("FULL");
const normal = figures("NORMAL");
const together = app.FULL[0]!.repliesTogether;

const row = (label: string, f: number, n: number, unit: string, digits = 2) =>
  console.log(`  ${label.padEnd(48)} ${`${fmt(f, digits)} ${unit}`.padStart(12)} ${`${fmt(n, digits)} ${unit}`.padStart(12)}   ×${fmt(f / n, 2)}`);
console.log(`  ${"".padEnd(48)} ${"FULL".padStart(12)} ${"NORMAL".padStart(12)}   FULL÷NORMAL`);
row("floor: raw better-sqlite3 one-row commit, p50", full.rawP50, normal.rawP50, "ms", 3);
row("floor: raw one-row commits per second", full.rawPerSecond, normal.rawPerSecond, "/s", 0);
row(`reply → receipt over REST, p50 (${SAMPLES * 2} in a row)`, full.p50, normal.p50, "ms");
row("reply → receipt over REST, p95", full.p95, normal.p95, "ms");
row("  reply p50 ÷ floor commit p50", full.p50 / full.rawP50, normal.p50 / normal.rawP50, "×", 1);
row(`replies recorded per second (${together} at once)`, full.repliesPerSecond, normal.repliesPerSecond, "/s", 0);
row("  ÷ floor commits per second", full.repliesPerSecond / full.rawPerSecond, normal.repliesPerSecond / normal.rawPerSecond, "", 4);
row(`questions asked and stored per second (${QUESTIONS} runs)`, full.questionsPerSecond, normal.questionsPerSecond, "/s", 0);
console.log(`  (load average at the end ${fmt(loadavg()[0]!)}; figures from a busy machine mostly measure the load)`);
