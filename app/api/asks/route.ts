import { jsonRoute, readJson } from "@/lib/server/http/json-route";
import { runStarterOf } from "@/lib/server/http/run-starter";
import { AskBodySchema, IdempotencyKeySchema } from "@/lib/protocol/asks";
import { parseOrThrow } from "@/lib/protocol/errors";

export const dynamic = "force-dynamic";

/** Asks the person a question from outside Parley (a script, an agent); with an Idempotency-Key, asking again returns the same question. */
export const POST = jsonRoute(
  async ({ req, parley, caller }) => {
    const body = await readJson(req, AskBodySchema);
    const key = req.headers.get("idempotency-key");
    const idempotencyKey = key === null ? undefined : parseOrThrow(IdempotencyKeySchema, key);
    const startedBy = await runStarterOf(req, caller, parley);
    return parley.asks.ask({ ownerId: caller.ownerId, body, idempotencyKey, credential: caller.credential, startedBy });
  },
  { status: 201 },
);
