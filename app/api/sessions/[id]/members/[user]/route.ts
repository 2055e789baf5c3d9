import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { RemoveMemberBodySchema } from "@/lib/protocol/teams";

export const dynamic = "force-dynamic";

/**
 * Stops sharing the session with a member (its owner or an administrator; any member for
 * themselves: leaving). Someone who is no member changes nothing. Answers its people as they now
 * are; the removed member's tabs drop the session and hear nothing more of it. A body, if any, is `{}`.
 */
export const DELETE = jsonRoute<{ id: string; user: string }>(async ({ req, params, parley, caller }) => {
  const sessionId = one(params.id);
  const user = one(params.user);
  if (user === caller.ownerId) await caller.see.session(sessionId);
  else await caller.manage.session(sessionId, "remove its members");
  await readJson(req, RemoveMemberBodySchema, { optional: true });
  return parley.members.remove({ sessionId, user });
});
