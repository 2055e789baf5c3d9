import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { CreateRuleBodySchema } from "@/lib/protocol/permissions";
import { grantEnd } from "@/lib/server/permissions/grant-end";

export const dynamic = "force-dynamic";

/** The project's default rules and the session's, each in the order they apply (the last match wins). */
export const GET = jsonRoute<{ id: string }>(async ({ params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.session(id);
  return parley.permissions.list(id);
});

/** Adds a session rule (it applies after every older one); an invalid pattern is a 400 naming it, an unknown tool is kept and flagged. */
export const POST = jsonRoute<{ id: string }>(
  async ({ req, params, parley, caller }) => {
    const sessionId = one(params.id);
    await caller.see.session(sessionId);
    const { until, ...rule } = await readJson(req, CreateRuleBodySchema);
    const added = await parley.permissions.addRule(sessionId, rule, "manual", undefined, { by: caller.ownerId, until: grantEnd(until) });
    parley.permissions.announce(sessionId);
    return added;
  },
  { status: 201 },
);
