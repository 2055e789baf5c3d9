import { PushKeySchema, PushSubscribedSchema } from "../../protocol/push";
import { keyBytes } from "./push-key";
import { PUSH_KEY_PATH, PUSH_SUBSCRIPTIONS_PATH, subscribeBody } from "./subscription-body";
import type { PushSubscriptionLike, SwEnv } from "./sw-env";
import { readThisDevice, writeThisDevice } from "./this-device-store";

export interface SubscriptionChange {
  oldSubscription?: { options?: { applicationServerKey?: ArrayBuffer | null } } | null;
  newSubscription?: PushSubscriptionLike | null;
}

/**
 * The push service replaced or ended this browser's subscription: subscribe again with the same
 * server key and tell the server, under the name the person gave this device. A browser that was
 * never subscribed from the "Notify this device" panel (no record) is left alone.
 */
export async function handleSubscriptionChange(env: SwEnv, change: SubscriptionChange): Promise<void> {
  const known = await readThisDevice(env.caches, env.origin);
  if (!known) return;
  const sub = change.newSubscription ?? (await env.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: await serverKey(env, change) }));
  const res = await env.fetch(new URL(PUSH_SUBSCRIPTIONS_PATH, env.origin).href, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(subscribeBody(sub, known.device)),
  });
  if (!res.ok) return;
  const { id } = PushSubscribedSchema.parse(await res.json());
  await writeThisDevice(env.caches, env.origin, { id, device: known.device, endpoint: sub.endpoint });
}

async function serverKey(env: SwEnv, change: SubscriptionChange): Promise<BufferSource> {
  const old = change.oldSubscription?.options?.applicationServerKey;
  if (old) return old;
  const res = await env.fetch(new URL(PUSH_KEY_PATH, env.origin).href, { credentials: "same-origin" });
  return keyBytes(PushKeySchema.parse(await res.json()).publicKey);
}
