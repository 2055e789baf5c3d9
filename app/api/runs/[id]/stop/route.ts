import { jsonRoute, one } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/** Stops the run and answers once it has ended (after at most the grace period). */
export const POST = jsonRoute<{ id: string }>(async ({ params, parley }) => parley.runs.stopRun({ id: one(params.id) }));
