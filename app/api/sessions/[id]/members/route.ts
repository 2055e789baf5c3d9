import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { AddMemberBodySchema } from "@/lib/protocol/teams";

export const dynamic = "force-dynamic";

/** The session's people: its owner first, then its members, oldest first (anyone who sees it). */
export const GET = jsonRoute<{ id: string }>(async ({ params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.session(id);
  return parley.members.list(id);
});

/**
 * Shares the session with a person (its owner or an administrator: 403 for a member): `{ user }`.
 * 201 with its people; the same person again, or its owner, changes nothing. Someone who is no
 * person is 404 `not_found:person`. The session appears at once in every tab of theirs.
 */
export const POST = jsonRoute<{ id: string }>(
  async ({ req, params, parley, caller }) => {
    const sessionId = one(params.id);
    await caller.manage.session(sessionId, "share this chat");
    const { user } = await readJson(req, AddMemberBodySchema);
    return parley.members.add({ sessionId, user, by: caller.ownerId });
  },
  { status: 201 },
);
