import { publicJsonRoute } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

const mb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;

/** Whether runs can run; the figures only for a signed-in caller. */
export const GET = publicJsonRoute(async ({ req, parley, caller }) => {
  if (!caller) return { ok: parley.pool.health().ok };
  // Benchmarks start the server with --expose-gc and ask for a full collection first: memory that is kept, not garbage.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc && new URL(req.url).searchParams.get("gc") === "1") gc();
  const pendingQuestions = await parley.questions.countPending();
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
  };
});
