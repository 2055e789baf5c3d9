import { cardKindOf, type ByCardKind } from "./card-kinds";
import { z } from "zod";
import { IdSchema } from "./commands";
import type { Question } from "./question";

/**
 * Web Push: the wire of `/api/push/*`, the payload a push carries to the service worker, and
 * which answer buttons a question offers. One source for the server (which builds payloads) and
 * the service worker and the tabs (which read them).
 */

/** `GET /api/push/key`: the VAPID public key (base64url, uncompressed P-256 point), for `pushManager.subscribe`. */
export const PushKeySchema = z.object({ publicKey: z.string() });
export type PushKey = z.infer<typeof PushKeySchema>;

export const MAX_DEVICE_NAME_CHARS = 60;
export const MAX_PUSH_ENDPOINT_CHARS = 2_000;

/** base64url, as `PushSubscription.toJSON()` gives the keys. */
const Base64Url = (what: string, max: number) =>
  z
    .string()
    .min(1, `${what} is empty`)
    .max(max, `${what} is too long`)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `${what} must be base64url`);

/**
 * `POST /api/push/subscriptions`: a browser's push subscription and the person's name for the
 * device. The endpoint must be `https:` on a known push service or on a host PARLEY_PUSH_HOSTS
 * allows: the server checks that, not this schema. Posting an endpoint again (the same device
 * subscribing again) updates its keys and name and returns the same id.
 */
export const PushSubscribeBodySchema = z.strictObject({
  endpoint: z
    .string()
    .trim()
    .max(MAX_PUSH_ENDPOINT_CHARS, `an endpoint has at most ${MAX_PUSH_ENDPOINT_CHARS} characters`)
    .pipe(z.url({ protocol: /^https$/, error: "a push endpoint must be an https: URL" })),
  keys: z.strictObject({ p256dh: Base64Url("keys.p256dh", 200), auth: Base64Url("keys.auth", 100) }),
  device: z
    .string()
    .trim()
    .min(1, "Name the device")
    .max(MAX_DEVICE_NAME_CHARS, `A device name is at most ${MAX_DEVICE_NAME_CHARS} characters`)
    .refine((t) => !/[\r\n\u2028\u2029]/.test(t), "A device name is one line"),
});
export type PushSubscribeBody = z.infer<typeof PushSubscribeBodySchema>;

export const PushSubscribedSchema = z.object({ id: z.string() });

/** A subscribed device as its owner sees it (never its keys, nor the endpoint's path: it is a bearer capability). */
export const PushDeviceSchema = z.object({
  id: z.string(),
  device: z.string(),
  /** The push service's host ("fcm.googleapis.com"). */
  service: z.string(),
  createdAt: z.string(),
  /** The last push the service accepted; null before the first. */
  lastPushAt: z.string().nullable(),
});
export type PushDevice = z.infer<typeof PushDeviceSchema>;

/** `GET /api/push/subscriptions`: this person's devices, newest first, and the sessions they muted. */
export const PushDevicesSchema = z.object({ devices: z.array(PushDeviceSchema), mutedSessions: z.array(z.string()) });
export type PushDevices = z.infer<typeof PushDevicesSchema>;

/** `DELETE /api/push/subscriptions/{id}` takes no body, or `{}`. */
export const RemovePushSubscriptionBodySchema = z.strictObject({});

/** `PUT /api/sessions/{id}/push` `{ muted }`: no push for this session's questions to any of this person's devices. */
export const SessionPushBodySchema = z.strictObject({ muted: z.boolean() });
export type SessionPushBody = z.infer<typeof SessionPushBodySchema>;

/**
 * Socket `device.presence`: which session this tab shows while it is visible and focused
 * (`sessionId` null otherwise), and the push subscription of its browser, if any. A device whose
 * tab is visible and focused on a session gets no push for that session's questions.
 */
export const DevicePresenceSchema = z.strictObject({ subscriptionId: IdSchema.nullable(), sessionId: IdSchema.nullable() });
export type DevicePresence = z.infer<typeof DevicePresenceSchema>;
/** A tab repeats its presence this often while focused; the server forgets it after PRESENCE_TTL_MS of silence. */
export const PRESENCE_REFRESH_MS = 30_000;
export const PRESENCE_TTL_MS = 75_000;

/** What a notification button does: answer the question with `value`, or reject it. */
export const PushCommandSchema = z.discriminatedUnion("kind", [z.object({ kind: z.literal("reply"), value: z.union([z.string(), z.boolean()]) }), z.object({ kind: z.literal("reject") })]);
export type PushCommand = z.infer<typeof PushCommandSchema>;

/** A notification button: `action` is the Notification action id. */
export const PushButtonSchema = z.object({ action: z.string(), title: z.string(), command: PushCommandSchema });
export type PushButton = z.infer<typeof PushButtonSchema>;

/** A push's body (JSON, encrypted aes128gcm to the device). */
export const PushPayloadSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("question"),
    questionId: z.string(),
    sessionId: z.string(),
    /** Who asks. */
    title: z.string(),
    /** The question (and the chat's title). */
    body: z.string(),
    /** The notification's tag: the question id, so the retraction closes it and a tab's own notification replaces it. */
    tag: z.string(),
    /** Where tapping the notification goes: the session, on the card. */
    url: z.string(),
    /** The question's targetDigest, sent with a button's reply so a changed question is never answered. */
    digest: z.string(),
    /** Answer buttons; empty when the question needs its card. All or none are shown (a platform that shows fewer opens the card). */
    buttons: z.array(PushButtonSchema),
  }),
  z.object({ type: z.literal("closed"), questionId: z.string(), tag: z.string() }),
]);
export type PushPayload = z.infer<typeof PushPayloadSchema>;

/** The notification tag of a question: the same for a tab's notification and a push. */
export const questionTag = (questionId: string) => questionId;

/** The most buttons a push offers: two for a confirm or an approval, up to three choices. */
export const MAX_PUSH_BUTTONS = 3;

/**
 * The answer buttons a question's notification offers: a confirm → Yes / No; a single choice of two
 * or three → the choices; an approval → Allow once / Reject. Free text, forms, multi-select and four
 * or more choices offer none (tapping opens the card).
 */
export function pushButtonsFor(q: Pick<Question, "kind" | "options" | "multi" | "replySchema" | "approval">): PushButton[] {
  return PUSH_BUTTONS[cardKindOf(q)](q);
}

const none = (): PushButton[] => [];
const PUSH_BUTTONS: ByCardKind<(q: Pick<Question, "options" | "replySchema">) => PushButton[]> = {
  confirm: () => [
    { action: "yes", title: "Yes", command: { kind: "reply", value: true } },
    { action: "no", title: "No", command: { kind: "reply", value: false } },
  ],
  approval: () => [
    { action: "allow", title: "Allow once", command: { kind: "reply", value: "once" } },
    { action: "reject", title: "Reject", command: { kind: "reject" } },
  ],
  choice: (q) =>
    q.replySchema !== null || q.options.length < 2 || q.options.length > MAX_PUSH_BUTTONS
      ? []
      : q.options.map((option, i) => ({ action: `choice-${i}`, title: option, command: { kind: "reply", value: option } })),
  multi_choice: none,
  text: none,
  form: none,
};
