import { RevokeTokenBodySchema } from "@/lib/protocol/access";
import { jsonRoute, mustBeAdmin, readJson } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/**
 * Revokes an API token (`parley token revoke` while a server runs): it is refused from now on, and
 * the sockets signed in with it are dropped before this answers. Any person's token may be named,
 * so only an administrator may revoke one.
 */
export const POST = jsonRoute(async ({ req, parley, caller }) => {
  const { id } = await readJson(req, RevokeTokenBodySchema);
  mustBeAdmin(caller, "revoke API tokens");
  return parley.revokeApiToken(id);
});
