import { AddPersonBodySchema, signInLinkUrl, type AddPersonResult, type People } from "@/lib/protocol/teams";
import { jsonRoute, mustBeAdmin, readJson } from "@/lib/server/http/json-route";
import { linkOrigin } from "@/lib/server/http/link-origin";

export const dynamic = "force-dynamic";

/** Everyone the administrator added (administrators only). */
export const GET = jsonRoute(async ({ parley, caller }): Promise<People> => {
  mustBeAdmin(caller, "list people");
  return { people: await parley.people.list() };
});

/** Adds a person (`parley user add`): the answer carries their one-time sign-in link, shown this once. */
export const POST = jsonRoute(
  async ({ req, parley, caller }): Promise<AddPersonResult> => {
    const { name, admin } = await readJson(req, AddPersonBodySchema);
    mustBeAdmin(caller, "add people");
    const { person, link, expiresAt } = await parley.people.add(name, { admin, addedBy: caller.ownerId });
    return { person, signInLink: signInLinkUrl(linkOrigin(req, parley), link), expiresAt };
  },
  { status: 201 },
);
