import type { WireError } from "../../protocol/errors";
import { PushKeySchema, PushSubscribedSchema } from "../../protocol/push";
import type { Ack } from "../../protocol/socket";
import type { RequestJson } from "../api";
import { keyBytes, sameKey } from "./push-key";
import { PUSH_KEY_PATH, PUSH_SUBSCRIPTIONS_PATH, pushSubscriptionPath, subscribeBody } from "./subscription-body";
import type { PushSubscriptionLike } from "./sw-env";
import { forgetThisDevice, readThisDevice, writeThisDevice, type ThisDevice } from "./this-device-store";

export interface BrowserSubscription extends PushSubscriptionLike {
  options: { applicationServerKey: ArrayBuffer | null };
  unsubscribe(): Promise<boolean>;
}

export interface PushManagerLike {
  getSubscription(): Promise<BrowserSubscription | null>;
  subscribe(options: { userVisibleOnly: boolean; applicationServerKey: BufferSource }): Promise<BrowserSubscription>;
}

/** What subscribing this browser needs; the tab passes the real ones, tests fakes. */
export interface PushDeps {
  request: RequestJson;
  pushManager: () => Promise<PushManagerLike>;
  requestPermission: () => Promise<NotificationPermission>;
  caches: CacheStorage;
  origin: string;
}

export type SubscribeResult = { ok: true; device: ThisDevice } | { ok: false; reason: "denied" | "dismissed" | "failed"; message: string };

const failed = (error: WireError | string): SubscribeResult => ({ ok: false, reason: "failed", message: typeof error === "string" ? error : error.message });

/**
 * "Notify this device": asks for notifications, subscribes this browser with the server's key
 * (again, when an old subscription was made with another key) and registers it under `device`.
 */
export async function subscribeThisDevice(deps: PushDeps, device: string): Promise<SubscribeResult> {
  const permission = await deps.requestPermission();
  if (permission === "denied") return { ok: false, reason: "denied", message: "Notifications are blocked for this site." };
  if (permission !== "granted") return { ok: false, reason: "dismissed", message: "Notifications weren't allowed. Try again and choose Allow." };

  const key = await deps.request<unknown>(PUSH_KEY_PATH);
  if (!key.ok) return failed(key.error);
  const parsedKey = PushKeySchema.safeParse(key.data);
  if (!parsedKey.success) return failed("The server sent no push key.");
  const applicationServerKey = keyBytes(parsedKey.data.publicKey);

  let sub: BrowserSubscription;
  try {
    const manager = await deps.pushManager();
    const old = await manager.getSubscription();
    if (old && !sameKey(old.options.applicationServerKey, applicationServerKey)) await old.unsubscribe();
    sub = old && sameKey(old.options.applicationServerKey, applicationServerKey) ? old : await manager.subscribe({ userVisibleOnly: true, applicationServerKey });
  } catch (err) {
    return failed(`This browser couldn't subscribe to notifications${err instanceof Error && err.message ? `: ${err.message}` : "."}`);
  }

  let body;
  try {
    body = subscribeBody(sub, device);
  } catch (err) {
    return failed((err as Error).message);
  }
  const res = await deps.request<unknown>(PUSH_SUBSCRIPTIONS_PATH, { method: "POST", body });
  if (!res.ok) return failed(res.error);
  const { id } = PushSubscribedSchema.parse(res.data);
  const record = { id, device: body.device, endpoint: sub.endpoint };
  await writeThisDevice(deps.caches, deps.origin, record);
  return { ok: true, device: record };
}

/** Removes a device from the server; removing this one also unsubscribes this browser. */
export async function removeDevice(deps: PushDeps, id: string): Promise<Ack<null>> {
  const res = await deps.request<null>(pushSubscriptionPath(id), { method: "DELETE" });
  // Gone already (removed from another tab, or dropped by the push service): this browser stops all the same.
  if (!res.ok && !res.error.code.startsWith("not_found")) return res;
  const mine = await readThisDevice(deps.caches, deps.origin);
  if (mine?.id === id) {
    await forgetThisDevice(deps.caches, deps.origin);
    try {
      await (await (await deps.pushManager()).getSubscription())?.unsubscribe();
    } catch {
      // The server no longer pushes to it: an unsubscribe that failed here changes nothing the person sees.
    }
  }
  return { ok: true, data: null };
}

/** This browser's device as the server knows it, when the browser still holds that subscription. */
export async function currentDevice(deps: Pick<PushDeps, "pushManager" | "caches" | "origin">): Promise<ThisDevice | null> {
  const mine = await readThisDevice(deps.caches, deps.origin);
  if (!mine) return null;
  const sub = await (await deps.pushManager()).getSubscription().catch(() => null);
  if (sub?.endpoint === mine.endpoint) return mine;
  // The browser dropped the subscription (site data cleared, permission revoked): so does the tab.
  if (!sub) await forgetThisDevice(deps.caches, deps.origin);
  return sub ? mine : null;
}
