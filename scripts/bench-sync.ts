/**
 * The cost of SQLite's synchronous = FULL (the default) against NORMAL (PARLEY_DB_SYNC=NORMAL), on
 * the production build: reply → receipt latency, replies recorded per second, questions asked and
 * stored per second, each beside the floor (raw better-sqlite3 commits of one row with the same
 * setting on the same disk), printed as ratios. Prints figures; asserts nothing.
 * Usage: npm run build && npm run bench:sync [-- --samples 50 --questions 100]
 */
import Database from "better-sqlite3";
import { rmSync, statfsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { api, benchRoot, fmt, machine, percentile, scratchDir, until, withServer, type ServerProcess } from "./bench-kit";

const { values } = parseArgs({ options: { samples: { type: "string", default: "50" }, questions: { type: "string", default: "100" } } });
const SAMPLES = Number(values.samples);
const QUESTIONS = Number(values.questions);
type Mode = "FULL" | "NORMAL";

/** One-row commits straight through better-sqlite3 (WAL, one transaction each): the floor for any durable write. */
function rawFloor(mode: Mode) {
  const dir = scratchDir();
  const db = new Database(path.join(dir, "raw.db"));
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${mode}`);
    db.exec("CREATE TABLE receipt (id TEXT PRIMARY KEY, body TEXT NOT NULL, at INTEGER NOT NULL)");
    const insert = db.prepare("INSERT INTO receipt (id, body, at) VALUES (?, ?, ?)");
    const commit = db.transaction((i: number) => insert.run(`r${i}`, JSON.stringify({ outcome: "answered", value: "ok", i }), Date.now()));
    const latencies: number[] = [];
    const started = performance.now();
    const n = 500;
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      commit(i);
      latencies.push(performance.now() - t);
    }
    return { p50: percentile(latencies, 50), perSecond: n / ((performance.now() - started) / 1000) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

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
    return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), repliesPerSecond, repliesTogether: together.length, questionsPerSecond };
  });
}

function filesystem(): string {
  const type = statfsSync(benchRoot()).type;
  return type === 0x01021994 ? "tmpfs: fsync costs nothing here, set PARLEY_BENCH_DIR to a disk" : type === 0xef53 ? "ext4" : `filesystem 0x${type.toString(16)}`;
}

console.log(`\nsynchronous = FULL (default) vs NORMAL (${machine()}; database on ${filesystem()})`);
const modes: Mode[] = ["FULL", "NORMAL"];
const raw = Object.fromEntries(modes.map((m) => [m, rawFloor(m)])) as Record<Mode, ReturnType<typeof rawFloor>>;
const app = {} as Record<Mode, Awaited<ReturnType<typeof appFigures>>>;
for (const m of modes) app[m] = await appFigures(m);

const row = (label: string, full: number, normal: number, unit: string, digits = 2) =>
  console.log(`  ${label.padEnd(44)} ${`${fmt(full, digits)} ${unit}`.padStart(13)} ${`${fmt(normal, digits)} ${unit}`.padStart(13)}   ×${fmt(full / normal, 2)}`);
console.log(`  ${"".padEnd(44)} ${"FULL".padStart(13)} ${"NORMAL".padStart(13)}   FULL÷NORMAL`);
row("floor: raw better-sqlite3 one-row commit, p50", raw.FULL.p50, raw.NORMAL.p50, "ms", 3);
row("floor: raw one-row commits per second", raw.FULL.perSecond, raw.NORMAL.perSecond, "/s", 0);
row(`reply → receipt over REST, p50 (${SAMPLES} in a row)`, app.FULL.p50, app.NORMAL.p50, "ms");
row("reply → receipt over REST, p95", app.FULL.p95, app.NORMAL.p95, "ms");
row("  ÷ floor commit (p50)", app.FULL.p50 / raw.FULL.p50, app.NORMAL.p50 / raw.NORMAL.p50, "×", 1);
row(`replies recorded per second (${app.FULL.repliesTogether} at once)`, app.FULL.repliesPerSecond, app.NORMAL.repliesPerSecond, "/s", 0);
row("  ÷ floor commits per second", app.FULL.repliesPerSecond / raw.FULL.perSecond, app.NORMAL.repliesPerSecond / raw.NORMAL.perSecond, "", 3);
row(`questions asked and stored per second (${QUESTIONS} runs)`, app.FULL.questionsPerSecond, app.NORMAL.questionsPerSecond, "/s", 0);
