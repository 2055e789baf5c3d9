import { expect, test, type Page } from "@playwright/test";
import type { PushDevices } from "../lib/protocol/push";
import { seriousViolations } from "./axe";
import { Api, ChatPage } from "./chat-page";
import { devtoolsPusher } from "./devtools-push";
import { ENDPOINT, fakePushManager, KEY } from "./push-fakes";

/** Issue 27: the installable app (manifest, icons, service worker, offline page) and the "Notify this device" panel. */

const shot = (page: Page, name: string) => page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: false });
const signedOut = { storageState: { cookies: [], origins: [] } };

/** A PNG's width and height, from its IHDR chunk. */
const pngSize = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });

async function controlled(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
}

test.describe("the installable app", () => {
  test("the manifest names Parley, standalone, with icons that load at their sizes — all without signing in", async ({ browser, baseURL }) => {
    const context = await browser.newContext(signedOut);
    const res = await context.request.get("/manifest.webmanifest");
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toMatch(/application\/manifest\+json/);
    const manifest = await res.json();
    expect(manifest).toMatchObject({ name: "Parley", short_name: "Parley", start_url: "/", scope: "/", display: "standalone", theme_color: "#4f46e5", background_color: "#fafaf9" });
    const icons = manifest.icons as { src: string; sizes: string; type: string; purpose: string }[];
    expect(icons.map((i) => `${i.sizes} ${i.purpose}`).sort()).toEqual(["192x192 any", "512x512 any", "512x512 maskable"]);
    for (const icon of [...icons, { src: "/apple-icon.png", sizes: "180x180" }]) {
      const img = await context.request.get(icon.src);
      expect(img.status(), icon.src).toBe(200);
      expect(img.headers()["content-type"], icon.src).toBe("image/png");
      const [w, h] = icon.sizes.split("x").map(Number);
      expect(pngSize(await img.body()), icon.src).toEqual({ width: w, height: h });
    }

    const sw = await context.request.get("/sw.js");
    expect(sw.status()).toBe(200);
    expect(sw.headers()["content-type"]).toMatch(/^application\/javascript/);
    expect(sw.headers()["cache-control"]).toBe("no-cache");
    expect((await context.request.get("/offline.html")).status()).toBe(200);
    // The app itself still needs sign-in.
    expect((await context.request.get("/", { maxRedirects: 0 })).status()).toBe(303);

    const page = await context.newPage();
    await page.goto("/sign-in");
    await expect(page.locator('link[rel="manifest"]')).toHaveAttribute("href", "/manifest.webmanifest");
    await expect(page.locator('link[rel="apple-touch-icon"]')).toHaveAttribute("href", /^\/apple-icon\.png/);
    await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute("content", "#4f46e5");
    expect(baseURL).toBeTruthy();
    await context.close();
  });

  test("the service worker controls the session page at the root scope", async ({ context, request, baseURL }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    expect(await tab.page.evaluate(async () => (await navigator.serviceWorker.ready).scope)).toBe(`${baseURL}/`);
    await controlled(tab.page);
  });

  test("offline, a page says honestly that the server can't be reached, and Retry comes back; no API answer is ever cached", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    const page = tab.page;
    await controlled(page);
    // Under the worker's control, a reload fetches the page, its assets and the API through it.
    await tab.goto(session.id);

    const cached = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const name of await caches.keys()) for (const req of await (await caches.open(name)).keys()) urls.push(req.url);
      return urls;
    });
    expect(cached.some((u) => u.endsWith("/offline.html"))).toBe(true);
    expect(cached.filter((u) => /\/(api|socket\.io|mcp)([/?]|$)/.test(new URL(u).pathname + "/"))).toEqual([]);
    expect(cached.filter((u) => new URL(u).pathname === `/s/${session.id}`)).toEqual([]);

    await context.setOffline(true);
    await page.reload();
    await expect(page.getByTestId("offline-title")).toHaveText("Parley is offline — can't reach the server");
    await expect(page).toHaveURL(new RegExp(`/s/${session.id}$`));
    await shot(page, "offline");
    await context.setOffline(false);
    await page.getByTestId("offline-retry").click();
    await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
  });
  test("the real worker shows a pushed question with its buttons, and a retraction closes it (pushes delivered through DevTools)", async ({ context, request, baseURL }) => {
    await context.grantPermissions(["notifications"]);
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    const page = tab.page;
    await controlled(page);
    const push = await devtoolsPusher(context, page, baseURL!);
    const shown = () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          tag: n.tag,
          actions: (n as Notification & { actions?: { action: string }[] }).actions?.map((a) => a.action) ?? [],
        })),
      );

    await push({
      type: "question",
      questionId: "q-e2e",
      sessionId: session.id,
      title: "deploy asks",
      body: "Ship it?",
      tag: "q-e2e",
      url: `/s/${session.id}`,
      digest: "d",
      buttons: [
        { action: "yes", title: "Yes", command: { kind: "reply", value: true } },
        { action: "no", title: "No", command: { kind: "reply", value: false } },
      ],
    });
    // Read once the worker has handled each push (devtools-push.ts says why not before).
    expect(await shown()).toEqual([{ title: "deploy asks", body: "Ship it?", tag: "q-e2e", actions: ["yes", "no"] }]);
    await push({ type: "closed", questionId: "q-e2e", tag: "q-e2e" });
    expect(await shown()).toEqual([]);
  });
});

/** /api/push/* as lib/protocol/push.ts describes them, until the server's routes are merged (e2e/push.spec.ts uses the real ones). */
async function fakePushRoutes(page: Page, sessionId: string) {
  const state: PushDevices = {
    devices: [{ id: "laptop", device: "Firefox on Linux", service: "updates.push.services.mozilla.com", createdAt: new Date().toISOString(), lastPushAt: null }],
    mutedSessions: [],
  };
  const posted: unknown[] = [];
  const json = (body: unknown, status = 200) => ({ status, contentType: "application/json", body: JSON.stringify(body) });
  await page.route("**/api/push/key", (route) => route.fulfill(json({ publicKey: KEY })));
  await page.route("**/api/push/subscriptions", async (route) => {
    if (route.request().method() === "POST") {
      const body = route.request().postDataJSON() as { device: string };
      posted.push(body);
      state.devices.unshift({ id: "phone", device: body.device, service: "fcm.googleapis.com", createdAt: new Date().toISOString(), lastPushAt: null });
      return route.fulfill(json({ id: "phone" }, 201));
    }
    return route.fulfill(json(state));
  });
  await page.route("**/api/push/subscriptions/*", (route) => {
    const id = route.request().url().split("/").at(-1);
    state.devices = state.devices.filter((d) => d.id !== id);
    return route.fulfill({ status: 204 });
  });
  await page.route(`**/api/sessions/${sessionId}/push`, (route) => {
    const { muted } = route.request().postDataJSON() as { muted: boolean };
    state.mutedSessions = muted ? [sessionId] : [];
    return route.fulfill(json({ muted }));
  });
  return { state, posted };
}

const seriousAxe = (page: Page) => seriousViolations(page, { within: '[data-testid="notify-panel"]', rules: "all" });

test.describe("Notify this device", () => {
  test("subscribes this browser under a name, lists the devices, removes this one (unsubscribing), mutes the chat", async ({ context, request }) => {
    await context.grantPermissions(["notifications"]);
    await fakePushManager(context);
    const session = await new Api(request).createSession();
    const tab = new ChatPage(await context.newPage());
    const routes = await fakePushRoutes(tab.page, session.id);
    await tab.goto(session.id);
    const page = tab.page;
    await page.evaluate(() => navigator.serviceWorker.ready);

    await page.getByTestId("notify-button").click();
    const panel = page.getByTestId("notify-panel");
    await expect(panel.getByRole("heading", { name: "Notify this device" })).toBeVisible();
    await expect(panel.getByTestId("notify-device")).toHaveText([/Firefox on Linux/]);
    await expect(panel.getByTestId("notify-device-name")).toHaveValue(/^Chrome on /);
    expect(await seriousAxe(page)).toEqual([]);
    await shot(page, "notify-panel");

    await panel.getByTestId("notify-device-name").fill("My laptop");
    await panel.getByTestId("notify-subscribe").click();
    await expect(panel.getByTestId("notify-subscribed")).toContainText("My laptop");
    expect(routes.posted).toEqual([{ endpoint: ENDPOINT, keys: { p256dh: expect.any(String), auth: "tBHItJI5svbpez7KI4CCXg" }, device: "My laptop" }]);
    await expect(panel.getByTestId("notify-device")).toHaveText([/My laptop\s*this device/, /Firefox on Linux/]);
    await expect(page.getByTestId("notify-button")).toHaveAttribute("data-subscribed", "true");
    expect(await seriousAxe(page)).toEqual([]);
    await shot(page, "notify-panel-subscribed");

    await panel.getByTestId("notify-mute").click();
    await expect(panel.getByTestId("notify-mute")).toHaveAttribute("aria-checked", "true");
    expect(routes.state.mutedSessions).toEqual([session.id]);

    await panel.getByRole("button", { name: "Remove My laptop" }).click();
    await expect(panel.getByTestId("notify-device")).toHaveText([/Firefox on Linux/]);
    await expect(panel.getByTestId("notify-subscribe")).toBeVisible();
    expect(await page.evaluate(async () => (await navigator.serviceWorker.ready).pushManager.getSubscription())).toBeNull();
    await page.keyboard.press("Escape");
    await expect(panel).toHaveCount(0);
    await expect(page.getByTestId("notify-button")).toBeFocused();
  });

  test("on a 360 px phone: the bell shows, the sheet fits with no sideways scroll, every control is at least 44 px", async ({ browser, context, request }) => {
    const session = await new Api(request).createSession();
    const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, storageState: await context.storageState() });
    await phone.grantPermissions(["notifications"]);
    const tab = new ChatPage(await phone.newPage());
    await fakePushRoutes(tab.page, session.id);
    await tab.goto(session.id);
    const page = tab.page;
    await expect(page.getByTestId("notify-button")).toBeVisible();
    await page.getByTestId("notify-button").click();
    const panel = page.getByTestId("notify-panel");
    await expect(panel.getByTestId("notify-device")).toHaveCount(1);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(360);
    const box = await panel.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    const small = await panel.locator("button, input").evaluateAll((els) =>
      els
        .map((el) => ({ el: el.getAttribute("data-testid") ?? el.textContent, r: el.getBoundingClientRect() }))
        .filter(({ r }) => r.height < 44 || r.width < 44)
        .map(({ el, r }) => `${el} ${r.width}x${r.height}`),
    );
    expect(small).toEqual([]);
    const bell = await page.getByTestId("notify-button").boundingBox();
    expect(bell!.width).toBeGreaterThanOrEqual(44);
    expect(bell!.height).toBeGreaterThanOrEqual(44);
    expect(await seriousAxe(page)).toEqual([]);
    await shot(page, "notify-panel-phone");
    await phone.close();
  });

  test("Safari on an iPhone, outside the Home Screen, is asked to add Parley there first", async ({ browser, context, request }) => {
    const session = await new Api(request).createSession();
    const iphone = await browser.newContext({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      storageState: await context.storageState(),
    });
    const tab = new ChatPage(await iphone.newPage());
    await fakePushRoutes(tab.page, session.id);
    await tab.goto(session.id);
    await tab.page.getByTestId("notify-button").click();
    await expect(tab.page.getByTestId("notify-home-screen")).toContainText("Add Parley to your Home Screen first");
    await expect(tab.page.getByTestId("notify-subscribe")).toHaveCount(0);
    expect(await seriousAxe(tab.page)).toEqual([]);
    await shot(tab.page, "notify-panel-iphone");
    await iphone.close();
  });

  test("blocked notifications say how to allow them again", async ({ browser, context, request }) => {
    const session = await new Api(request).createSession();
    const blocked = await browser.newContext({ storageState: await context.storageState() });
    await blocked.addInitScript(() => Object.defineProperty(Notification, "permission", { get: () => "denied" }));
    const tab = new ChatPage(await blocked.newPage());
    await fakePushRoutes(tab.page, session.id);
    await tab.goto(session.id);
    await tab.page.getByTestId("notify-button").click();
    await expect(tab.page.getByTestId("notify-denied")).toContainText("site settings");
    await blocked.close();
  });
});
