/**
 * Whether this browser can get pushes, and if not what the person can do: iOS and iPadOS deliver
 * Web Push only to a Parley added to the Home Screen (16.4+), so Safari in a tab can't subscribe.
 */
export type PushSupport = "ready" | "needs-home-screen" | "unsupported";

export interface BrowserTraits {
  userAgent: string;
  maxTouchPoints: number;
  /** Opened from the home screen (display-mode standalone, or iOS's navigator.standalone). */
  standalone: boolean;
  serviceWorker: boolean;
  pushManager: boolean;
  notification: boolean;
}

export const isAppleMobile = (t: Pick<BrowserTraits, "userAgent" | "maxTouchPoints">) => /\b(iPhone|iPad|iPod)\b/.test(t.userAgent) || (/\bMacintosh\b/.test(t.userAgent) && t.maxTouchPoints > 1);

export function pushSupport(t: BrowserTraits): PushSupport {
  if (isAppleMobile(t) && !t.standalone) return "needs-home-screen";
  return t.serviceWorker && t.pushManager && t.notification ? "ready" : "unsupported";
}

/** This browser's traits (in a tab). */
export function browserTraits(): BrowserTraits {
  const nav = navigator as Navigator & { standalone?: boolean };
  return {
    userAgent: nav.userAgent,
    maxTouchPoints: nav.maxTouchPoints ?? 0,
    standalone: nav.standalone === true || window.matchMedia?.("(display-mode: standalone)").matches === true,
    serviceWorker: "serviceWorker" in nav,
    pushManager: "PushManager" in window,
    notification: "Notification" in window,
  };
}
