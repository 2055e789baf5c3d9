/**
 * Benchmark of durable runs against the production build (run `npm run build` first):
 *  1. memory of the server (and its workers) with no pending questions, then with 1,000 parked ones;
 *  2. time from a reply to the resumed function's next line, for a parked run and for a live one.
 * Prints figures; asserts nothing. Usage: npm run bench [-- --questions 1000 --samples 20]
 */
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { execSync } from "node:child_process";
import { api, until } from "./bench-kit";
import { freePort, startServerProcess, type ServerProcess } from "../tests/helpers/server-process";

const { values } = parseArgs({ options: { questions: { type: "string", default: "1000" }, samples: { type: "string", default: "20" } } });
const QUESTIONS = Number(values.questions);
const SAMPLES = Number(values.samples);

function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function memory(server: ServerProcess) {
  const pid = server.child.pid!;
  const children = execSync(`ps -o pid= --ppid ${pid} || true`).toString().split("\n").map(Number).filter(Boolean);
  const serverMb = rssKb(pid) / 1024;
  const workersMb = children.reduce((sum, c) => sum + rssKb(c), 0) / 1024;
  return { serverMb, workers: children.length, workersMb, totalMb: serverMb + workersMb };
}

type Health = { pendingQuestions: number; liveRuns: number; workers: number; memory: { rssMb: number; heapUsedMb: number } };
type Question = { id: string };

async function withServer<T>(env: Record<string, string>, work: (s: ServerProcess) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), "parley-bench-"));
  const server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "bench.db"), env });
  try {
    return await work(server);
  } finally {
    await server.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => n.toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

async function benchMemory() {
  await withServer({ PARLEY_PARK_AFTER_MS: "0", PARLEY_MAX_WORKERS: "4" }, async (server) => {
    const session = await api<{ id: string }>(server, "/api/sessions", {});
    await new Promise((r) => setTimeout(r, 2_000));
    const idle = memory(server);
    const idleHeap = (await api<Health>(server, "/api/health")).memory.heapUsedMb;
    const started = Date.now();
    for (let i = 0; i < QUESTIONS; i++) await api(server, `/api/sessions/${session.id}/runs`, { function: "test.stamp" });
    await until(async () => {
      const h = await api<Health>(server, "/api/health");
      return h.pendingQuestions === QUESTIONS && h.liveRuns === 0 && h;
    });
    const seconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 2_000));
    const parked = memory(server);
    const heap = (await api<Health>(server, "/api/health")).memory.heapUsedMb;
    console.log(`\nMemory (RSS, MB)                      server  workers  total`);
    console.log(`  no pending questions              ${fmt(idle.serverMb).padStart(7)}  ${fmt(idle.workersMb).padStart(7)}  ${fmt(idle.totalMb).padStart(5)}  (${idle.workers} worker processes)`);
    console.log(`  ${QUESTIONS} parked pending questions   ${fmt(parked.serverMb).padStart(7)}  ${fmt(parked.workersMb).padStart(7)}  ${fmt(parked.totalMb).padStart(5)}  (${parked.workers} worker processes)`);
    console.log(`  difference                        ${fmt(parked.serverMb - idle.serverMb).padStart(7)}  ${fmt(parked.workersMb - idle.workersMb).padStart(7)}  ${fmt(parked.totalMb - idle.totalMb).padStart(5)}`);
    console.log(`  server JS heap in use: ${fmt(idleHeap)} MB idle, ${fmt(heap)} MB with ${QUESTIONS} parked (not forced through GC)`);
    console.log(`  (${QUESTIONS} runs started, asked and parked in ${fmt(seconds)} s)`);
  });
}

async function benchLatency(label: string, env: Record<string, string>, waitParked: boolean) {
  await withServer(env, async (server) => {
    const session = await api<{ id: string }>(server, "/api/sessions", {});
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES + 2; i++) {
      const run = await api<{ id: string }>(server, `/api/sessions/${session.id}/runs`, { function: "test.stamp" });
      const question = await until(async () => (await api<Question[]>(server, `/api/questions?session_id=${session.id}`))[0] ?? false);
      if (waitParked) await until(async () => (await api<Health>(server, "/api/health")).liveRuns === 0);
      const sent = Date.now();
      await api(server, `/api/questions/${question.id}/reply`, { value: "go" });
      const result = await until(async () => {
        const r = await api<{ status: string; result: { resumedAt: number } }>(server, `/api/runs/${run.id}`);
        return r.status === "succeeded" && r.result;
      });
      if (i >= 2) samples.push(result.resumedAt - sent); // the first two warm the pool up
    }
    console.log(`  ${label.padEnd(34)} median ${fmt(median(samples)).padStart(6)} ms   p95 ${fmt(p95(samples)).padStart(6)} ms   (${samples.length} samples)`);
  });
}

console.log(`Parley durable-run benchmark (${new Date().toISOString()}, node ${process.version})`);
await benchMemory();
console.log(`\nReply → the function's next line`);
await benchLatency("live worker (not parked)", { PARLEY_PARK_AFTER_MS: "600000" }, false);
await benchLatency("parked run (resumed by replay)", { PARLEY_PARK_AFTER_MS: "0" }, true);
