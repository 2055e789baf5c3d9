import type { SwRegistration } from "./sw-env";

/**
 * The registration with its notification calls made one after another. Chromium drops the stored
 * record of a notification that `getNotifications()` reads while `showNotification()` is still
 * showing it (as one the platform no longer displays): a retraction read at that moment (another
 * question's, pushes come together) would leave that notification on screen, unfindable by its own
 * retraction later. Each call starts once the previous one has settled.
 */
export function oneAtATime(registration: SwRegistration): SwRegistration {
  let last: Promise<unknown> = Promise.resolve();
  const queued = <T>(call: () => Promise<T>): Promise<T> => {
    const result = last.then(call, call);
    last = result.catch(() => undefined);
    return result;
  };
  return {
    showNotification: (title, options) => queued(() => registration.showNotification(title, options)),
    getNotifications: (filter) => queued(() => registration.getNotifications(filter)),
    get pushManager() {
      return registration.pushManager;
    },
  };
}
