import { jsonRoute } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(async ({ parley }) => {
  const pending = await parley.questions.listPending();
  return { ok: true, pendingQuestions: pending.length, liveRuns: parley.runs.liveCount(), workers: parley.pool.size };
});
