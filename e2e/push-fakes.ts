import type { BrowserContext } from "@playwright/test";

/** A VAPID-shaped public key (an uncompressed P-256 point) for stood-in /api/push/key answers. */
export const KEY = "BPcMbnWQL5GOYX_5LKZXT6sLmHiMsJSiEvIFvfcDvX7IJ9qd3M5uyH5lFdAvYAxpTX6SjFEw9jh9J9V2Qz2FS7o";
export const ENDPOINT = "https://fcm.googleapis.com/fcm/send/e2e-fake";

/** The browser's push subscription stood in for (a headless browser reaches no push service). */
export async function fakePushManager(context: BrowserContext): Promise<void> {
  await context.addInitScript(
    ({ endpoint }) => {
      let sub: unknown = null;
      const make = (key: ArrayBuffer) => ({
        endpoint,
        options: { applicationServerKey: key, userVisibleOnly: true },
        toJSON: () => ({ endpoint, keys: { p256dh: "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM", auth: "tBHItJI5svbpez7KI4CCXg" } }),
        unsubscribe: async () => {
          sub = null;
          return true;
        },
      });
      PushManager.prototype.getSubscription = async function () {
        return sub as PushSubscription | null;
      };
      PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
        const key = options?.applicationServerKey as Uint8Array;
        sub = make(new Uint8Array(key).buffer);
        return sub as PushSubscription;
      };
    },
    { endpoint: ENDPOINT },
  );
}
