import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import { PRESENCE_TTL_MS, type DevicePresence, type PushDevices, type PushSubscribeBody } from "../../protocol/push";
import { newOrderedId } from "../ids";
import type { Db } from "../store/db/client";
import { createPushStore } from "../store/push/push-store";
import { checkPushEndpoint } from "./push-hosts";

/** A browser's keys as the push encryption needs them: a P-256 point (65 bytes) and a 16-byte secret. */
function checkKeys({ p256dh, auth }: PushSubscribeBody["keys"]): void {
  const point = Buffer.from(p256dh, "base64url");
  if (point.length !== 65 || point[0] !== 4)
    throw new AppError("bad_request", "Invalid request body: keys.p256dh must be an uncompressed P-256 public key (65 bytes, base64url), as PushSubscription.toJSON() gives it.");
  if (Buffer.from(auth, "base64url").length !== 16) throw new AppError("bad_request", "Invalid request body: keys.auth must be 16 bytes (base64url), as PushSubscription.toJSON() gives it.");
}

/** A person's push devices: subscribing (on the push services allowed), listing, removing, muting a session, and where a browser's tab is. */
export function createPushDevices({ db, hosts = [] }: { db: Db; hosts?: readonly string[] }) {
  const store = createPushStore(db.exec);
  return {
    /**
     * Subscribes a browser (again: the same endpoint keeps its id). An endpoint another person
     * subscribed stays theirs: `push_endpoint_taken` (a browser signing out removes its own first).
     */
    async subscribe(ownerId: string, { endpoint, keys, device }: PushSubscribeBody): Promise<{ id: string }> {
      checkPushEndpoint(endpoint, hosts);
      checkKeys(keys);
      const id = await store.subscribe({ id: newOrderedId(), ownerId, endpoint, p256dh: keys.p256dh, auth: keys.auth, device });
      if (id === null) {
        throw new AppError("push_endpoint_taken", "This browser's notifications are another person's: they sign out of Parley here first (which removes them), then notify this device again.");
      }
      return { id };
    },

    async list(ownerId: string): Promise<PushDevices> {
      const [devices, mutedSessions] = await Promise.all([store.devices(ownerId), store.mutedSessions(ownerId)]);
      return { devices, mutedSessions };
    },

    /** Removes one of the owner's devices; `not_found:push_subscription` for any other id. */
    async remove(ownerId: string, id: string): Promise<void> {
      if (!(await store.remove(id, ownerId))) throw new AppError("not_found:push_subscription", `No push subscription with id ${quoteId(id)}.`);
    },

    /** Mutes or unmutes a session for all the owner's devices (the caller checked the owner sees it). */
    setMuted: (ownerId: string, sessionId: string, muted: boolean) => store.setMuted(ownerId, sessionId, muted),

    /** Records that a tab of this browser shows `sessionId` (null: none) for PRESENCE_TTL_MS; false when the subscription is not the owner's. */
    present: (ownerId: string, { subscriptionId, sessionId }: DevicePresence & { subscriptionId: string }, ttlMs = PRESENCE_TTL_MS) => store.present({ id: subscriptionId, ownerId, sessionId, ttlMs }),

    /** A tab that showed `sessionId` went away. */
    absent: (subscriptionId: string, sessionId: string) => store.absent(subscriptionId, sessionId),
  };
}

export type PushDevicesService = ReturnType<typeof createPushDevices>;
