import { LOCAL_OWNER, SignOutEverywhereBodySchema } from "@/lib/protocol/access";
import { AppError } from "@/lib/protocol/errors";
import { jsonRoute, readJson } from "@/lib/server/http/json-route";
import { clearSessionCookie } from "@/lib/server/http/session-cookie-header";

export const dynamic = "force-dynamic";

/**
 * Signs every browser out: every session cookie issued before now is refused, on every node, and
 * the sockets signed in with one are dropped. This browser's cookie is cleared on the way. Browser
 * cookies speak for the server's own owner, so only a credential of that owner may do it.
 */
export const POST = jsonRoute(async ({ req, parley, caller }) => {
  await readJson(req, SignOutEverywhereBodySchema, { optional: true });
  if (caller.ownerId !== LOCAL_OWNER) throw new AppError("forbidden", "Only the server's own owner can sign every browser out.");
  const result = await parley.signOutEverywhere();
  return Response.json(result, { headers: { "set-cookie": clearSessionCookie(parley.access.browserSessions.cookieName) } });
});
