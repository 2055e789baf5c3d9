import { expect, type BrowserContext, type Page } from "@playwright/test";

/**
 * Pushes delivered to the page's service worker through DevTools (a headless browser reaches no
 * push service), each awaited until the worker has handled it: DevTools' background-services log
 * says "Push event completed" once the push event and its waitUntil promises have settled.
 *
 * Wait for that, never poll `getNotifications()` meanwhile: Chromium drops the stored record of a
 * notification that a `getNotifications()` reads while it is still being shown (as if the
 * platform had closed it), and every later read misses it although it is on screen.
 */
export async function devtoolsPusher(context: BrowserContext, page: Page, origin: string): Promise<(payload: unknown) => Promise<void>> {
  const cdp = await context.newCDPSession(page);
  const statuses: string[] = [];
  cdp.on("BackgroundService.backgroundServiceEventReceived", ({ backgroundServiceEvent: e }) => {
    if (e.eventName === "Push event completed") statuses.push(e.eventMetadata.find((m) => m.key === "Status")?.value ?? "");
  });
  await cdp.send("BackgroundService.startObserving", { service: "pushMessaging" });
  await cdp.send("BackgroundService.setRecording", { shouldRecord: true, service: "pushMessaging" });

  const registrationId = new Promise<string>((resolve) =>
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const mine = registrations.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted);
      if (mine) resolve(mine.registrationId);
    }),
  );
  await cdp.send("ServiceWorker.enable");

  return async (payload) => {
    const before = statuses.length;
    await cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId: await registrationId, data: JSON.stringify(payload) });
    await expect.poll(() => statuses.length, { message: "the worker handled the push" }).toBe(before + 1);
    expect(statuses[before], "the push event's outcome").toBe("Success");
  };
}
