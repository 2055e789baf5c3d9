import { RemoveRuleBodySchema } from "@/lib/protocol/rest";
import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/** Removes one of the session's rules; 404 for an id of no rule of this session. A body, if any, is `{}`. */
export const DELETE = jsonRoute<{ id: string; ruleId: string }>(async ({ req, params, parley, caller }) => {
  const sessionId = one(params.id);
  await caller.see.session(sessionId);
  await readJson(req, RemoveRuleBodySchema, { optional: true });
  await parley.permissions.removeRule(sessionId, one(params.ruleId));
  parley.permissions.announce(sessionId);
  return { removed: true };
});
