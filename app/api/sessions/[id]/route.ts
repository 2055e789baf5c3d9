import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { DeleteSessionBodySchema, RenameSessionBodySchema } from "@/lib/protocol/rest";

export const dynamic = "force-dynamic";

export const GET = jsonRoute<{ id: string }>(async ({ params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.session(id);
  return parley.sessions.getSnapshot({ id });
});

/** Renames the chat (its owner or an administrator: 403 for a member): `{ title }`, one line of 1–200 characters; every tab of its people hears `session.updated`. */
export const PATCH = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const id = one(params.id);
  await caller.manage.session(id, "rename this chat");
  const { title } = await readJson(req, RenameSessionBodySchema);
  return parley.sessions.renameSession({ id, title });
});

/** Deletes the chat (its owner or an administrator: 403 for a member): its runs are stopped and its questions retracted first; then it is not found. */
export const DELETE = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const id = one(params.id);
  await caller.manage.session(id, "delete this chat");
  await readJson(req, DeleteSessionBodySchema, { optional: true });
  return parley.deleteSession({ id });
});
