import { NewSignInLinkBodySchema, signInLinkUrl, type NewSignInLinkResult } from "@/lib/protocol/teams";
import { jsonRoute, mustBeAdmin, one, readJson } from "@/lib/server/http/json-route";
import { linkOrigin } from "@/lib/server/http/link-origin";

export const dynamic = "force-dynamic";

/** A new one-time sign-in link for a person (`parley user link`), in place of their unused ones. */
export const POST = jsonRoute<{ name: string }>(async ({ req, params, parley, caller }): Promise<NewSignInLinkResult> => {
  await readJson(req, NewSignInLinkBodySchema, { optional: true });
  mustBeAdmin(caller, "give people sign-in links");
  const { name, link, expiresAt } = await parley.people.newLink(one(params.name));
  return { name, signInLink: signInLinkUrl(linkOrigin(req, parley), link), expiresAt };
});
