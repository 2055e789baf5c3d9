/** Shared pieces of the benchmarks (scripts/bench-*.ts): a production server on a scratch database, REST calls, figures. */
import Database from "better-sqlite3";
import { execSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "../tests/helpers/server-process";

export type { ServerProcess };

export async function api<T>(server: ServerProcess, route: string, body?: unknown): Promise<T> {
  const res = await call(server, route, body);
  if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.data)}`);
  return res.data as T;
}

// The clients' own CPU is not the server's: node:http over kept connections costs the load
// generator about a third of what fetch does, which on two cores leaves that to the server.
const keptAlive = new Agent({ keepAlive: true, maxSockets: 256 });

/** A GET (no body) or a JSON POST, with the test token: its status and parsed JSON. */
export function call(server: ServerProcess, route: string, body?: unknown): Promise<{ status: number; data: unknown }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string | number> = { ...authHeaders() };
  if (payload !== undefined) Object.assign(headers, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${route}`, { method: payload === undefined ? "GET" : "POST", headers, agent: keptAlive }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.once("error", reject);
      res.once("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        try {
          resolve({ status: res.statusCode ?? 0, data: text === "" ? null : (JSON.parse(text) as unknown) });
        } catch (err) {
          reject(new Error(`${route}: ${res.statusCode} answered no JSON: ${text.slice(0, 200)}`, { cause: err }));
        }
      });
    });
    req.once("error", reject);
    req.end(payload);
  });
}

export async function until<T>(check: () => Promise<T | false>, ms = 600_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== false) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Runs `work` against the production build (`npm run build` first) on a fresh database in a scratch folder (on disk, not tmpfs). */
export async function withServer<T>(env: Record<string, string>, work: (s: ServerProcess, databaseFile: string) => Promise<T>): Promise<T> {
  const dir = scratchDir();
  const databaseFile = path.join(dir, "bench.db");
  const server = await startServerProcess({ port: await freePort(), databaseFile, env });
  try {
    return await work(server, databaseFile);
  } finally {
    await server.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Where scratch databases go: PARLEY_BENCH_DIR, else the system's temporary folder. */
export const benchRoot = () => process.env.PARLEY_BENCH_DIR ?? tmpdir();

export function scratchDir(): string {
  return mkdtempSync(path.join(benchRoot(), "parley-bench-"));
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
export function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function machine(): string {
  return `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? "CPU"}, ${Math.round(totalmem() / 2 ** 30)} GB RAM`;
}

/** p50 and p99 of `xs` (ms), and their ratios to a floor's p50 and p99 when given (`against` names it): one printed row. */
export function row(label: string, xs: number[], floor?: number[], unit = "ms", against = "the floor"): string {
  const [p50, p99] = [percentile(xs, 50), percentile(xs, 99)];
  const ratio = floor ? `   ×${fmt(p50 / percentile(floor, 50), 1)} / ×${fmt(p99 / percentile(floor, 99), 1)} ${against}` : "";
  return `  ${label.padEnd(56)} p50 ${fmt(p50, 2).padStart(8)} ${unit}   p99 ${fmt(p99, 2).padStart(8)} ${unit}${ratio}`;
}

/** The `synchronous` setting the app runs with (PARLEY_DB_SYNC, FULL by default: lib/server/env.ts). */
export const appSynchronous = (): "FULL" | "NORMAL" => ((process.env.PARLEY_DB_SYNC ?? "FULL").toUpperCase() === "NORMAL" ? "NORMAL" : "FULL");

/** One-row commits straight through better-sqlite3 (WAL, one transaction each, `synchronous` as given): the floor for any durable write. */
export function rawCommits(mode: "FULL" | "NORMAL", n = 500) {
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
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      commit(i);
      latencies.push(performance.now() - t);
    }
    return { latencies, perSecond: n / ((performance.now() - started) / 1000) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function rssKb(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The pids of a process's children (a server's workers). */
export const childrenOf = (pid: number): number[] => execSync(`ps -o pid= --ppid ${pid} || true`).toString().split("\n").map(Number).filter(Boolean);

/** RSS of the server and of its worker processes (its children), MB. */
export function memory(server: ServerProcess) {
  const pid = server.child.pid!;
  const children = childrenOf(pid);
  const serverMb = rssKb(pid) / 1024;
  const workersMb = children.reduce((sum, c) => sum + rssKb(c), 0) / 1024;
  return { serverMb, workers: children.length, workersMb, totalMb: serverMb + workersMb };
}

export type Health = { pendingQuestions: number; liveRuns: number; workers: number; memory: { rssMb: number; heapUsedMb: number } };
/** The server's health; `gc`: after a full garbage collection (a server started with --expose-gc). */
export const health = (server: ServerProcess, gc = false) => api<Health>(server, gc ? "/api/health?gc=1" : "/api/health");

/**
 * Starts `n` runs of `fn` from `clients` concurrent REST clients, each starting its next run when
 * the last one's start request answered. `sessionId` names the session of every run, or
 * "new" creates one per run first (as a chat opened for each task would; counted in its time).
 * Returns when each was sent and its run's id (or the refusal).
 */
export async function startRuns(server: ServerProcess, sessionId: string, n: number, clients: number, input: (i: number) => unknown, fn = "test.ask") {
  const starts: { i: number; sent: number; answered: number; status: number; sessionId: string; runId?: string }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(clients, n) }, async () => {
      while (next < n) {
        const i = next++;
        const sent = performance.now();
        const session = sessionId === "new" ? (await api<{ id: string }>(server, "/api/sessions", { title: `Run ${i + 1}` })).id : sessionId;
        const res = await call(server, `/api/sessions/${session}/runs`, { function: fn, input: input(i) });
        starts.push({ i, sent, answered: performance.now(), status: res.status, sessionId: session, runId: (res.data as { id?: string } | null)?.id });
      }
    }),
  );
  return starts;
}
