import { RemovePersonBodySchema, type RemovePersonResult } from "@/lib/protocol/teams";
import { jsonRoute, mustBeAdmin, one, readJson } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/** Removes a person (`parley user remove`): their cookies and API tokens are refused, and their open sockets closed, on every node. */
export const DELETE = jsonRoute<{ name: string }>(async ({ req, params, parley, caller }): Promise<RemovePersonResult> => {
  await readJson(req, RemovePersonBodySchema, { optional: true });
  mustBeAdmin(caller, "remove people");
  return parley.people.remove(one(params.name));
});
