import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { RetryRunBodySchema } from "@/lib/protocol/commands";

export const dynamic = "force-dynamic";

/** Runs a failed chat turn again (its message is not posted twice); 409 not_retryable for any other run. */
export const POST = jsonRoute<{ id: string }>(
  async ({ req, params, parley, caller }) => {
    const runId = one(params.id);
    await caller.see.run(runId);
    await readJson(req, RetryRunBodySchema, { optional: true });
    return parley.retryTurn({ runId, by: caller.ownerId });
  },
  { status: 201 },
);
