/** Shared pieces of the benchmarks (scripts/bench-*.ts): a production server on a scratch database, REST calls, figures. */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "../tests/helpers/server-process";

export type { ServerProcess };

export async function api<T>(server: ServerProcess, route: string, body?: unknown): Promise<T> {
  const res = await fetch(
    `${server.url}${route}`,
    body === undefined ? { headers: authHeaders() } : { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) },
  );
  const data = await res.json();
  if (!res.ok) throw new Error(`${route}: ${res.status} ${JSON.stringify(data)}`);
  return data as T;
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
