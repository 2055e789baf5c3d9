import type https from "node:https";
import webpush from "web-push";
import { clip } from "../../protocol/bounded-text";
import type { VapidKeys } from "./vapid-keys";

/** How long a push service may stay silent during one attempt. */
export const PUSH_TIMEOUT_MS = 10_000;
/** How long a push service keeps a push for a device that is offline: a day. */
export const PUSH_TTL_SECONDS = 24 * 3_600;

/**
 * What one attempt came to: taken; `gone` (404, 410: the browser unsubscribed, the subscription
 * must go); a failure worth retrying (the service is busy or away); or a final one (the service
 * refused this push itself: too large, a bad signature, a redirect).
 */
export type PushOutcome = { ok: true } | { ok: false; gone: true; error: string } | { ok: false; gone: false; retry: boolean; error: string };

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** The status codes a push service answers when a retry may succeed. */
const RETRYABLE = (status: number) => status === 408 || status === 425 || status === 429 || status >= 500;

/** Encrypts `payload` to the device (aes128gcm), signs with VAPID and POSTs it to its push service. */
export async function postPush(
  target: PushTarget,
  payload: string,
  { vapid, topic, agent, ttlSeconds = PUSH_TTL_SECONDS, timeoutMs = PUSH_TIMEOUT_MS }: { vapid: VapidKeys; topic: string; agent?: https.Agent; ttlSeconds?: number; timeoutMs?: number },
): Promise<PushOutcome> {
  try {
    await webpush.sendNotification({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, payload, {
      vapidDetails: { subject: vapid.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
      contentEncoding: "aes128gcm",
      TTL: ttlSeconds,
      urgency: "high",
      topic,
      agent,
      timeout: timeoutMs,
    });
    return { ok: true };
  } catch (err) {
    return failedPush(err);
  }
}

/** What a failed send means: web-push's WebPushError carries the push service's status; anything else happened on the way. */
export function failedPush(err: unknown): Exclude<PushOutcome, { ok: true }> {
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === "number") {
    // The body is the push service's words; the endpoint (a capability) is never part of the error kept.
    const body = (err as { body?: unknown }).body;
    const said = clip(typeof body === "string" ? body.trim() : "", 120);
    const error = `HTTP ${status}${said ? `: ${said}` : ""}`;
    if (status === 404 || status === 410) return { ok: false, gone: true, error };
    if (status >= 300 && status < 400) return { ok: false, gone: false, retry: false, error: `${error} (redirects are not followed)` };
    return { ok: false, gone: false, retry: RETRYABLE(status), error };
  }
  const e = err as NodeJS.ErrnoException;
  const message = e?.message ?? String(err);
  // A bad key of the device (an encryption error) is final; anything on the way there is retried.
  const network = typeof e?.code === "string" || /socket|timeout|ECONN|EADDR/i.test(message);
  return { ok: false, gone: false, retry: network, error: e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message };
}
