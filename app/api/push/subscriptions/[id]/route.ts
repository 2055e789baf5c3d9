import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { RemovePushSubscriptionBodySchema } from "@/lib/protocol/push";

export const dynamic = "force-dynamic";

/** Removes one of this person's devices: 204; 404 `not_found:push_subscription` for any other id. A body, if any, is `{}`. */
export const DELETE = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  await readJson(req, RemovePushSubscriptionBodySchema, { optional: true });
  await parley.push.devices.remove(caller.ownerId, one(params.id));
  return new Response(null, { status: 204 });
});
