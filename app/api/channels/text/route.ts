import { answeringAs } from "@/lib/server/access/answering-as";
import { jsonRoute, readJson } from "@/lib/server/http/json-route";
import { AppError } from "@/lib/protocol/errors";
import { ChannelTextBodySchema, MAX_CHANNEL_TEXT_CHARS } from "@/lib/protocol/channels";

export const dynamic = "force-dynamic";

/** A plain-text channel's message: a command, the answer to the one pending question, or a chat turn; answered at once with `{ reply }`. */
export const POST = jsonRoute(async ({ req, parley, caller }) => {
  const body = await readJson(req, ChannelTextBodySchema);
  if (body.text.length > MAX_CHANNEL_TEXT_CHARS) throw new AppError("payload_too_large", `The text is longer than ${MAX_CHANNEL_TEXT_CHARS} characters.`);
  await caller.see.session(body.sessionId);
  return parley.channelText({ ...body, answerer: answeringAs(caller) });
});
