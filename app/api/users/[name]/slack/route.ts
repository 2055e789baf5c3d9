import { AppError } from "@/lib/protocol/errors";
import { SlackLinkBodySchema, type SlackLinked } from "@/lib/protocol/slack";
import { jsonRoute, mustBeAdmin, one, readJson } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/**
 * Links a person to their Slack user (`npx parley user link NAME --slack U…`): their clicks in
 * Slack answer as them. `{ slackUserId: null }` unlinks. Administrators only: a link decides who a
 * Slack user answers as. 409 when that Slack user is another person's.
 */
export const PUT = jsonRoute<{ name: string }>(async ({ req, params, parley, caller }): Promise<SlackLinked> => {
  mustBeAdmin(caller, "link people to Slack");
  const { slackUserId } = await readJson(req, SlackLinkBodySchema);
  if (!parley.slack) throw new AppError("bad_request", "Slack is not set up on this server: set PARLEY_SLACK_BOT_TOKEN and PARLEY_SLACK_SIGNING_SECRET (docs/slack.md).");
  const person = await parley.people.idOf(one(params.name));
  await parley.slack.link(person, slackUserId);
  return { person, slackUserId };
});
