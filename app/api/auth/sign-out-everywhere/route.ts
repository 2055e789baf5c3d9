import { SignOutEverywhereBodySchema } from "@/lib/protocol/access";
import { jsonRoute, mustBeAdmin, readJson } from "@/lib/server/http/json-route";
import { clearSessionCookie } from "@/lib/server/http/session-cookie-header";

export const dynamic = "force-dynamic";

/**
 * Signs every browser out: every session cookie issued before now is refused, on every node, and
 * the sockets signed in with one are dropped. This browser's cookie is cleared on the way. It signs
 * out every person, so only an administrator may.
 */
export const POST = jsonRoute(async ({ req, parley, caller }) => {
  await readJson(req, SignOutEverywhereBodySchema, { optional: true });
  mustBeAdmin(caller, "sign every browser out");
  const result = await parley.signOutEverywhere();
  return Response.json(result, { headers: { "set-cookie": clearSessionCookie(parley.access.browserSessions.cookieName) } });
});
