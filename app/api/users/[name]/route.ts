import { RenamePersonBodySchema, type PersonRenamed } from "@/lib/protocol/display-names";
import { AppError } from "@/lib/protocol/errors";
import { RemovePersonBodySchema, type RemovePersonResult } from "@/lib/protocol/teams";
import { jsonRoute, mustBeAdmin, one, readJson } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/** Removes a person (`parley user remove`): their cookies and API tokens are refused, and their open sockets closed, on every node. */
export const DELETE = jsonRoute<{ name: string }>(async ({ req, params, parley, caller }): Promise<RemovePersonResult> => {
  await readJson(req, RemovePersonBodySchema, { optional: true });
  mustBeAdmin(caller, "remove people");
  return parley.people.remove(one(params.name));
});

/**
 * Renames a person (`parley user rename NAME NEW`, the People panel): their display name, which
 * every tab shows at once. `{name}` is their id or their display name. An administrator renames
 * anyone (the administrator too); anyone else only themselves.
 */
export const PATCH = jsonRoute<{ name: string }>(async ({ req, params, parley, caller }): Promise<PersonRenamed> => {
  const { displayName } = await readJson(req, RenamePersonBodySchema);
  return parley.people.rename(one(params.name), displayName, (id) => {
    if (!caller.admin && id !== caller.ownerId) throw new AppError("forbidden", "Only an administrator can rename other people; you may rename yourself.");
  });
});
