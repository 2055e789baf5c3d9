import { AppError } from "@/lib/protocol/errors";
import { SessionSlackBodySchema } from "@/lib/protocol/slack";
import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/**
 * Where this chat's questions go in Slack: `{ channel: "C…" }`, or `{ channel: null }` for the
 * server's default (PARLEY_SLACK_CHANNEL, else the DMs of the linked people who may answer).
 * Its owner or an administrator.
 */
export const PUT = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const sessionId = one(params.id);
  await caller.manage.session(sessionId, "choose where this chat's questions go in Slack");
  const { channel } = await readJson(req, SessionSlackBodySchema);
  if (!parley.slack) throw new AppError("bad_request", "Slack is not set up on this server: set PARLEY_SLACK_BOT_TOKEN and PARLEY_SLACK_SIGNING_SECRET (docs/slack.md).");
  await parley.slack.setChannel(sessionId, channel);
  return { sessionId, channel };
});
