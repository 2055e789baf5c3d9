import { useSyncExternalStore } from "react";
import { requestJson } from "../api";
import { browserTraits, pushSupport } from "./push-support";
import { currentDevice, type PushDeps } from "./this-device";
import type { ThisDevice } from "./this-device-store";

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

/** Reads this browser's subscription again (after the worker registers, and when the panel opens). */
export async function refreshThisDevice(): Promise<void> {
  if (pushSupport(browserTraits()) !== "ready" || !("caches" in window)) return setThisDevice(null);
  setThisDevice(await currentDevice(browserPushDeps()).catch(() => null));
}
