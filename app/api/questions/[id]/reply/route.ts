import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { ReplyBodySchema } from "@/lib/protocol/rest";

export const dynamic = "force-dynamic";

/** The receipt says what happened: `answered`, or `already_answered` / `already_closed` for a late reply. */
export const POST = jsonRoute<{ id: string }>(async ({ req, params, parley }) => {
  const id = one(params.id);
  await parley.questions.getQuestion({ id });
  const { value } = await readJson(req, ReplyBodySchema);
  return parley.questions.reply({ id, value, by: "rest" });
});
