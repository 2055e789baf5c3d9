import { answeringAs } from "@/lib/server/access/answering-as";
import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { replySurfaceOf } from "@/lib/server/http/reply-surface";
import { ReplyBodySchema } from "@/lib/protocol/commands";

export const dynamic = "force-dynamic";

/**
 * The receipt says what happened: `answered`, or for a late or stale reply `already_answered`,
 * `already_closed` or `stale_target` with apply_state `target_closed`. Repeating a commandId
 * returns the first receipt.
 */
export const POST = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const id = one(params.id);
  // An unknown id is 404 whatever the body; the reply checks again in its own transaction.
  await caller.see.question(id);
  const { value, input, until, commandId, digest } = await readJson(req, ReplyBodySchema);
  return parley.questions.reply({ id, value, input, until, commandId, digest, by: replySurfaceOf(req), ...answeringAs(caller) });
});
