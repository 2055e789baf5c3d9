import { jsonRoute, one } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/** Removes one of the session's rules; 404 for an id of no rule of this session. */
export const DELETE = jsonRoute<{ id: string; ruleId: string }>(async ({ params, parley, caller }) => {
  const sessionId = one(params.id);
  await caller.see.session(sessionId);
  await parley.permissions.removeRule(sessionId, one(params.ruleId));
  parley.permissions.announce(sessionId);
  return { removed: true };
});
