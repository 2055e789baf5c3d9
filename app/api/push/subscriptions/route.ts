import { jsonRoute, readJson } from "@/lib/server/http/json-route";
import { PushSubscribeBodySchema } from "@/lib/protocol/push";

export const dynamic = "force-dynamic";

/** This person's devices, newest first, and the sessions they muted. */
export const GET = jsonRoute(async ({ parley, caller }) => parley.push.devices.list(caller.ownerId));

/**
 * Subscribes this browser: 201 `{ id }`, the same id when the endpoint subscribed before (its keys
 * and name are updated). An endpoint not https on a known push service, nor on a host
 * PARLEY_PUSH_HOSTS lists, is refused with 422 `push_endpoint_not_allowed`.
 */
export const POST = jsonRoute(
  async ({ req, parley, caller }) => {
    const body = await readJson(req, PushSubscribeBodySchema);
    return parley.push.devices.subscribe(caller.ownerId, body);
  },
  { status: 201 },
);
