import type { PeopleNames } from "@/lib/protocol/display-names";
import { jsonRoute } from "@/lib/server/http/json-route";
import { namesSeenBy } from "@/lib/server/people/display-names";

export const dynamic = "force-dynamic";

/** The display names the caller's tabs show people by: everyone's for an administrator, else theirs and those who share a chat with them. */
export const GET = jsonRoute(async ({ parley, caller }): Promise<PeopleNames> => {
  const [everyone, sharing] = await Promise.all([parley.people.names(), caller.admin ? new Set<string>() : parley.members.sharingWith(caller.ownerId)]);
  return { names: namesSeenBy({ id: caller.ownerId, admin: caller.admin }, everyone, sharing) };
});
