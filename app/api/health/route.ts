import { publicJsonRoute } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

const mb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;

/** Whether runs can run; the figures only for a signed-in caller. */
export const GET = publicJsonRoute(async ({ parley, caller }) => {
  if (!caller) return { ok: parley.pool.health().ok };
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
