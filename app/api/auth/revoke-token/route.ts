import { LOCAL_OWNER, RevokeTokenBodySchema } from "@/lib/protocol/access";
import { AppError } from "@/lib/protocol/errors";
import { jsonRoute, readJson } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/**
 * Revokes an API token (`parley token revoke` while a server runs): it is refused from now on, and
 * the sockets signed in with it are dropped before this answers. API tokens are made on the
 * server's machine for its owner's scripts, so only a credential of that owner may revoke one.
 */
export const POST = jsonRoute(async ({ req, parley, caller }) => {
  const { id } = await readJson(req, RevokeTokenBodySchema);
  if (caller.ownerId !== LOCAL_OWNER) throw new AppError("forbidden", "Only the server's own owner can revoke API tokens.");
  return parley.revokeApiToken(id);
});
