import { publicJsonRoute } from "@/lib/server/http/json-route";
import { checkDatabase } from "@/lib/server/health";

export const dynamic = "force-dynamic";

const mb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;

/** Whether runs can run; the figures only for a signed-in caller. */
export const GET = publicJsonRoute(async ({ req, parley, caller }) => {
  if (!caller) return { ok: parley.pool.health().ok };
  // Benchmarks start the server with --expose-gc and ask for a full collection first: memory that is kept, not garbage.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc && new URL(req.url).searchParams.get("gc") === "1") gc();
  const [pendingQuestions, database] = await Promise.all([parley.questions.countPending(), checkDatabase(parley.db.exec)]);
  const { rss, heapUsed } = process.memoryUsage();
  const workerPool = parley.pool.health();
  return {
    // false while no worker process can be started: runs cannot run.
    ok: workerPool.ok,
    pendingQuestions,
    liveRuns: parley.runs.liveCount(),
    workers: workerPool.size,
    queuedForWorker: workerPool.queued,
    workerPool,
    memory: { rssMb: mb(rss), heapUsedMb: mb(heapUsed) },
    // SELECT 1 within a short timeout, and the engine DATABASE_URL names.
    database,
    // single (no REDIS_URL), connected, or lost: this node does not hear the others.
    redis: parley.cluster.status(),
    node: parley.node(),
  };
});
