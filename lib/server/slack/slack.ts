import { WebClient } from "@slack/web-api";
import { AppError } from "../../protocol/errors";
import { MAX_SLACK_BODY_BYTES, SlackInteractionSchema } from "../../protocol/slack";
import type { PeopleCache } from "../access/people-cache";
import type { QuestionService } from "../questions/question-service";
import { createDisplayNames } from "../people/display-names";
import type { Db } from "../store/db/client";
import { createPeopleStore } from "../store/people/people-store";
import { createSlackInteractions, type SlackResponse } from "./slack-interactions";
import { createSlackOutbox, type SlackOutboxOptions } from "./slack-outbox";
import { slackRequestVerified } from "./slack-signature";
import { createSlackPeople } from "./slack-people";
import { createSlackStore } from "../store/slack/slack-store";
import { createEmailStore } from "../store/email/email-store";

export interface SlackConfig extends SlackOutboxOptions {
  botToken: string;
  signingSecret: string;
  /** Slack's Web API (default Slack's own). */
  apiUrl?: string;
}

/** A request to the interactivity URL as it arrived: its raw body and the two headers Slack signs with. */
export interface SlackRequest {
  body: string | null;
  signature: string | null;
  timestamp: string | null;
}

/**
 * Slack as an answer surface: the outbox that shows questions there, and the interactivity
 * endpoint that takes the answers. The Web API through Slack's own client (`@slack/web-api`),
 * with its retries off: the outbox retries, honouring Retry-After.
 */
export function createSlack(config: SlackConfig, deps: { db: Db; questions: QuestionService; people: Pick<PeopleCache, "get">; seeQuestion(person: string, id: string): Promise<void> }) {
  const client = new WebClient(config.botToken, { slackApiUrl: config.apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: 10_000 });
  const links = createSlackStore(deps.db.exec);
  const slackPeople = createSlackPeople({ client, links, emails: createEmailStore(deps.db.exec) });
  const outbox = createSlackOutbox({ db: deps.db, client, questions: deps.questions, people: slackPeople }, config);
  const names = createDisplayNames(createPeopleStore(deps.db.exec));
  const interactions = createSlackInteractions({ client, store: slackPeople, questions: deps.questions, people: deps.people, seeQuestion: deps.seeQuestion, nameOf: names.nameOf });

  return {
    surface: outbox.surface,
    outbox,
    /** Links a person to their Slack user (null: unlinks); a Slack user already another person's is refused. */
    async link(personId: string, slackUserId: string | null): Promise<void> {
      if (slackUserId === null) return outbox.store.unlink(personId);
      if (!(await outbox.store.link(personId, slackUserId))) throw new AppError("slack_user_taken", `The Slack user ${slackUserId} is linked to another person already: unlink them first.`);
    },
    setChannel: (sessionId: string, channel: string | null) => outbox.store.setChannel(sessionId, channel),
    deliveriesOf: (questionId: string) => outbox.store.of(questionId),

    /** The interactivity endpoint: a request not signed by Slack within five minutes is refused (401) and changes nothing. */
    async receive(req: SlackRequest): Promise<SlackResponse> {
      if (req.body === null) throw new AppError("payload_too_large", `A Slack request is at most ${MAX_SLACK_BODY_BYTES} bytes.`);
      if (!slackRequestVerified({ secret: config.signingSecret, signature: req.signature, timestamp: req.timestamp, body: req.body })) {
        throw new AppError("unauthorized", "This request is not signed by Slack with this app's signing secret, or its timestamp is more than five minutes away.");
      }
      let raw: unknown;
      try {
        raw = JSON.parse(new URLSearchParams(req.body).get("payload") ?? "null");
      } catch {
        throw new AppError("bad_request", "A Slack interaction's payload is JSON.");
      }
      const parsed = SlackInteractionSchema.safeParse(raw);
      // Another kind of interaction (a modal closed, a shortcut): taken, nothing to do.
      if (!parsed.success) return null;
      return interactions.handle(parsed.data);
    },
  };
}

export type Slack = ReturnType<typeof createSlack>;
