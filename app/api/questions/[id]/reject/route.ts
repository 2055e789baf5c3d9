import { answeringAs } from "@/lib/server/access/answering-as";
import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { replySurfaceOf } from "@/lib/server/http/reply-surface";
import { RejectBodySchema } from "@/lib/protocol/commands";

export const dynamic = "force-dynamic";

export const POST = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const id = one(params.id);
  // An unknown id is 404 whatever the body; the reply checks again in its own transaction.
  await caller.see.question(id);
  const { message, commandId, digest } = await readJson(req, RejectBodySchema, { optional: true });
  return parley.questions.reject({ id, message, commandId, digest, by: replySurfaceOf(req), ...answeringAs(caller) });
});
