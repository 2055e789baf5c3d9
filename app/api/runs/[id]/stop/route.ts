import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { StopRunBodySchema } from "@/lib/protocol/commands";

export const dynamic = "force-dynamic";

/**
 * Stops the run and answers once it has ended (after at most the grace period), with the stop's
 * receipt (StoppedRun): `outcome` says whether the stop ended it, it finished first, or it had already ended.
 */
export const POST = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.run(id);
  const { commandId } = await readJson(req, StopRunBodySchema, { optional: true });
  return parley.runs.stopRun({ id, commandId, by: "rest" });
});
