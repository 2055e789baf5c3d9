import { PushSubscribeBodySchema, type PushSubscribeBody } from "../../protocol/push";
import type { PushSubscriptionLike } from "./sw-env";

/** `POST /api/push/subscriptions`'s body for a browser subscription; throws when the browser's subscription lacks its keys. */
export function subscribeBody(sub: PushSubscriptionLike, device: string): PushSubscribeBody {
  const json = sub.toJSON();
  const parsed = PushSubscribeBodySchema.safeParse({ endpoint: json.endpoint ?? sub.endpoint, keys: { p256dh: json.keys?.p256dh, auth: json.keys?.auth }, device });
  if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? "This browser's push subscription can't be used.");
  return parsed.data;
}

export const PUSH_KEY_PATH = "/api/push/key";
export const PUSH_SUBSCRIPTIONS_PATH = "/api/push/subscriptions";
export const pushSubscriptionPath = (id: string) => `${PUSH_SUBSCRIPTIONS_PATH}/${encodeURIComponent(id)}`;
export const sessionPushPath = (sessionId: string) => `/api/sessions/${encodeURIComponent(sessionId)}/push`;
