import { AppError } from "@/lib/protocol/errors";
import { MAX_SLACK_BODY_BYTES } from "@/lib/protocol/slack";
import { publicJsonRoute } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/**
 * Slack's interactivity request URL (docs/slack.md): a click on a question's message, a modal's
 * submission. Checked against the app's signing secret (401 and nothing changes otherwise);
 * answered 200 with nothing, or with a modal's errors.
 */
export const POST = publicJsonRoute(async ({ req, parley }) => {
  if (!parley.slack) throw new AppError("not_found:route", "Slack is not set up on this server: set PARLEY_SLACK_BOT_TOKEN and PARLEY_SLACK_SIGNING_SECRET (docs/slack.md).");
  const response = await parley.slack.receive({
    body: await req.bodyText(MAX_SLACK_BODY_BYTES),
    signature: req.headers.get("x-slack-signature"),
    timestamp: req.headers.get("x-slack-request-timestamp"),
  });
  return response ?? new Response(null, { status: 200 });
});
