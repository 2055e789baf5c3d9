import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { ResumeBodySchema } from "@/lib/protocol/commands";

export const dynamic = "force-dynamic";

/** Loads a run that is active but in no worker (e.g. parked) into a worker, replaying its journal. */
export const POST = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const runId = one(params.id);
  await caller.see.run(runId);
  const { commandId } = await readJson(req, ResumeBodySchema, { optional: true });
  return parley.resume({ runId, commandId });
});
