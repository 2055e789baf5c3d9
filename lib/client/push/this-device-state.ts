import { useSyncExternalStore } from "react";
import { requestJson } from "../api";
import { browserTraits, pushSupport } from "./push-support";
import { currentDevice, removeDevice, type PushDeps } from "./this-device";
import { readThisDevice, type ThisDevice } from "./this-device-store";

/**
 * This tab's knowledge of its browser's push subscription, shared by the "Notify this device"
 * panel, the presence it says and the tab's own notifications (skipped when pushes come).
 */
let device: ThisDevice | null = null;
const listeners = new Set<() => void>();

export function setThisDevice(next: ThisDevice | null): void {
  device = next;
  listeners.forEach((l) => l());
}

export const thisDevice = (): ThisDevice | null => device;

export function useThisDevice(): ThisDevice | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => device,
    () => null,
  );
}

/** The browser's own push machinery for this tab. */
export function browserPushDeps(): PushDeps {
  return {
    request: requestJson,
    pushManager: async () => (await navigator.serviceWorker.ready).pushManager,
    requestPermission: () => Notification.requestPermission(),
    caches: window.caches,
    origin: window.location.origin,
  };
}

/**
 * Signing out: this browser's notifications are removed from the server and unsubscribed, so the
 * next person signing in here may subscribe it (an endpoint stays its owner's until then).
 */
export async function forgetThisBrowserDevice(): Promise<void> {
  if (!("caches" in window) || !("serviceWorker" in navigator)) return;
  const deps = browserPushDeps();
  const mine = await readThisDevice(deps.caches, deps.origin);
  if (!mine) return;
  const res = await removeDevice(deps, mine.id);
  if (res.ok) setThisDevice(null);
}

/** Reads this browser's subscription again (after the worker registers, and when the panel opens). */
export async function refreshThisDevice(): Promise<void> {
  if (pushSupport(browserTraits()) !== "ready" || !("caches" in window)) return setThisDevice(null);
  setThisDevice(await currentDevice(browserPushDeps()).catch(() => null));
}
