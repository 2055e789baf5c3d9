import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { SessionPushBodySchema } from "@/lib/protocol/push";

export const dynamic = "force-dynamic";

/** `{ muted }`: no push of this session's questions to any of this person's devices (or pushes again). 204. */
export const PUT = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const sessionId = one(params.id);
  await caller.see.session(sessionId);
  const { muted } = await readJson(req, SessionPushBodySchema);
  await parley.push.devices.setMuted(caller.ownerId, sessionId, muted);
  return new Response(null, { status: 204 });
});
