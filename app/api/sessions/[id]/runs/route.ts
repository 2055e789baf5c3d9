import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { runStarterOf } from "@/lib/server/http/run-starter";
import { StartRunBodySchema } from "@/lib/protocol/commands";

export const dynamic = "force-dynamic";

export const GET = jsonRoute<{ id: string }>(async ({ params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.session(id);
  return parley.runs.listRuns({ sessionId: id });
});

/** Starts a run; with a commandId, repeating the request returns the same run and receipt. */
export const POST = jsonRoute<{ id: string }>(
  async ({ req, params, parley, caller }) => {
    const sessionId = one(params.id);
    const { ownerId } = await caller.see.session(sessionId);
    const body = await readJson(req, StartRunBodySchema);
    const startedBy = await runStarterOf(req, caller, parley);
    return parley.runs.startRun({
      sessionId,
      sessionOwnerId: ownerId,
      functionName: body.function,
      input: body.input ?? null,
      policy: body.policy,
      commandId: body.commandId,
      startedBy,
      starterId: caller.ownerId,
    });
  },
  { status: 201 },
);
