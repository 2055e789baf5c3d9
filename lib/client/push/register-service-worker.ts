import { refreshThisDevice } from "./this-device-state";

export const SERVICE_WORKER_URL = "/sw.js";

/** Registers the service worker at the root scope once the page has loaded (where service workers exist: HTTPS or localhost). */
export function registerServiceWorker(): () => void {
  if (!("serviceWorker" in navigator)) return () => {};
  const register = () => {
    navigator.serviceWorker
      .register(SERVICE_WORKER_URL, { scope: "/" })
      .then(() => refreshThisDevice())
      .catch(() => {
        // No worker (blocked, or an old browser): the app works as a plain page, without push or offline.
      });
  };
  if (document.readyState === "complete") {
    register();
    return () => {};
  }
  window.addEventListener("load", register, { once: true });
  return () => window.removeEventListener("load", register);
}
