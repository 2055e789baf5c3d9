import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { StopRunBodySchema } from "@/lib/protocol/commands";
import { AppError } from "@/lib/protocol/errors";
import { mayStopRun, stopRefusal } from "@/lib/protocol/run-stop";

export const dynamic = "force-dynamic";

/**
 * Stops the run and answers once it has ended (after at most the grace period), with the stop's
 * receipt (StoppedRun): `outcome` says whether the stop ended it, it finished first, or it had already ended.
 */
export const POST = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.run(id);
  const { commandId } = await readJson(req, StopRunBodySchema, { optional: true });
  const run = await parley.runs.getRun({ id });
  if (!mayStopRun(run, { name: caller.ownerId, admin: caller.admin })) throw new AppError("forbidden", stopRefusal(run));
  return parley.runs.stopRun({ id, commandId, by: "rest" });
});
