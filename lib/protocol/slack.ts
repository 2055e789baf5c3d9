import { z } from "zod";

/**
 * Slack: the interactivity requests Slack sends to `POST /api/slack/interactions` (the fields
 * Parley reads of them), the ids Parley gives its buttons and modals, and how a person is linked
 * to their Slack user. Slack's own reference: api.slack.com/reference/interaction-payloads.
 */

export const SLACK_INTERACTIONS_PATH = "/api/slack/interactions";
/** How far a request's X-Slack-Request-Timestamp may be from now (Slack's own advice: five minutes). */
export const SLACK_SIGNATURE_WINDOW_SECONDS = 300;
/** The body Slack sends at most (an interaction with a modal's whole state): more is refused unread. */
export const MAX_SLACK_BODY_BYTES = 256 * 1024;

/** A Slack user id: `U012ABCDEF` (or `W…` in an Enterprise Grid). */
export const SlackUserIdSchema = z
  .string()
  .trim()
  .regex(/^[UW][A-Z0-9]{2,30}$/, "A Slack user id is U or W followed by capitals and digits, such as U012ABCDEF (Slack: the person's profile → ⋯ → Copy member ID).");

/** A Slack channel id: `C…` (public), `G…` (private), `D…` (a DM). */
export const SlackChannelIdSchema = z
  .string()
  .trim()
  .regex(/^[CGD][A-Z0-9]{2,30}$/, "A Slack channel id is C, G or D followed by capitals and digits, such as C012ABCDEF (Slack: the channel's details → Copy channel ID).");

/** What a person picked or typed in one input of a message or a modal. */
const InputStateSchema = z.object({
  type: z.string(),
  value: z.string().nullish(),
  selected_option: z.object({ value: z.string() }).nullish(),
  selected_options: z.array(z.object({ value: z.string() })).nullish(),
  selected_date: z.string().nullish(),
});
export type SlackInputState = z.infer<typeof InputStateSchema>;
/** `state.values`: block id → action id → what is in it. */
const StateValuesSchema = z.record(z.string(), z.record(z.string(), InputStateSchema));
export type SlackStateValues = z.infer<typeof StateValuesSchema>;

const ActionSchema = z.object({
  action_id: z.string(),
  block_id: z.string().optional(),
  value: z.string().optional(),
  selected_option: z.object({ value: z.string() }).nullish(),
});

/** A click on a button or a pick in a select of one of Parley's messages. */
export const BlockActionsSchema = z.object({
  type: z.literal("block_actions"),
  user: z.object({ id: z.string() }),
  trigger_id: z.string().optional(),
  actions: z.array(ActionSchema).min(1),
  channel: z.object({ id: z.string() }).optional(),
  message: z.object({ ts: z.string() }).optional(),
  state: z.object({ values: StateValuesSchema }).optional(),
  response_url: z.string().optional(),
});
export type BlockActions = z.infer<typeof BlockActionsSchema>;

/** A modal of Parley's sent (Answer…, Reject…). */
export const ViewSubmissionSchema = z.object({
  type: z.literal("view_submission"),
  user: z.object({ id: z.string() }),
  view: z.object({ callback_id: z.string(), private_metadata: z.string(), state: z.object({ values: StateValuesSchema }) }),
});
export type ViewSubmission = z.infer<typeof ViewSubmissionSchema>;

/** Every interaction Parley answers; others (a modal closed, a shortcut) are taken and ignored. */
export const SlackInteractionSchema = z.discriminatedUnion("type", [BlockActionsSchema, ViewSubmissionSchema]);
export type SlackInteraction = z.infer<typeof SlackInteractionSchema>;

/**
 * The action ids of Parley's buttons and inputs. A button's `value` is the question's id (with the
 * option's index for a choice), so a click names exactly what it answers.
 */
export const SLACK_ACTIONS = {
  choose: "parley_choose",
  chooseSelect: "parley_choose_select",
  multiPick: "parley_multi_pick",
  multiSend: "parley_multi_send",
  yes: "parley_yes",
  no: "parley_no",
  allowOnce: "parley_allow_once",
  allowAlways: "parley_allow_always",
  reject: "parley_reject",
  edit: "parley_edit",
  answer: "parley_answer",
} as const;

/** The modals Parley opens: their callback ids. */
export const SLACK_VIEWS = { answer: "parley_answer", reject: "parley_reject", edit: "parley_edit" } as const;

/** A choice's button value: the question and the option's place. */
export const choiceValue = (questionId: string, index: number) => `${questionId}:${index}`;
export function readChoiceValue(value: string): { questionId: string; index: number } | null {
  const at = value.lastIndexOf(":");
  const index = Number(value.slice(at + 1));
  return at > 0 && Number.isInteger(index) && index >= 0 ? { questionId: value.slice(0, at), index } : null;
}

/** `npx parley user link NAME --slack U…` over REST: `PUT /api/users/{name}/slack`. */
export const SlackLinkBodySchema = z.strictObject({ slackUserId: SlackUserIdSchema.nullable() });
export type SlackLinkBody = z.infer<typeof SlackLinkBodySchema>;
/** Its answer: the person (their id) and the Slack user they are linked to now (null: none). */
export const SlackLinkedSchema = z.object({ person: z.string(), slackUserId: SlackUserIdSchema.nullable() });
export type SlackLinked = z.infer<typeof SlackLinkedSchema>;

/** `PUT /api/sessions/{id}/slack`: where this chat's questions go (null: the server's default). */
export const SessionSlackBodySchema = z.strictObject({ channel: SlackChannelIdSchema.nullable() });
export type SessionSlackBody = z.infer<typeof SessionSlackBodySchema>;

/** A question's message in Slack, as its run's audit shows it (`GET /api/runs/{id}`'s `slack`). */
export const SlackDeliverySchema = z.object({
  id: z.string(),
  questionId: z.string(),
  /** The channel, or the person's Slack user for a DM. */
  channel: z.string(),
  /** pending: Slack does not show the question as it is yet (a post or update is due); done: it does; failed: given up. */
  status: z.enum(["pending", "done", "failed"]),
  /** Attempts since it was last in step. */
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  /** When Slack last showed it as it was then (null: never). */
  syncedAt: z.string().nullable(),
});
export type SlackDelivery = z.infer<typeof SlackDeliverySchema>;
