import { jsonRoute } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

const mb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;

export const GET = jsonRoute(async ({ parley }) => {
  const pending = await parley.questions.listPending();
  const { rss, heapUsed } = process.memoryUsage();
  return {
    ok: true,
    pendingQuestions: pending.length,
    liveRuns: parley.runs.liveCount(),
    workers: parley.pool.size,
    queuedForWorker: parley.pool.queued,
    memory: { rssMb: mb(rss), heapUsedMb: mb(heapUsed) },
  };
});
