import { expect, test } from "@playwright/test";
import { PushDevicesSchema } from "../lib/protocol/push";
import { Api, ChatPage } from "./chat-page";
import { ENDPOINT, fakePushManager } from "./push-fakes";

/**
 * Issue 27: the "Notify this device" panel against the server's real /api/push/* routes (the
 * push-server branch). Only the browser's PushManager is stood in for: a headless browser reaches
 * no push service. e2e/pwa.spec.ts covers the panel with the routes stood in for.
 */
test("Notify this device registers this browser with the server, mutes the chat, and removes it again", async ({ context, request }) => {
  await context.grantPermissions(["notifications"]);
  await fakePushManager(context);
  const session = await new Api(request).createSession();
  const devices = async () => PushDevicesSchema.parse(await (await request.get("/api/push/subscriptions")).json());
  const before = (await devices()).devices.length;

  const tab = await ChatPage.open(context, session.id);
  const page = tab.page;
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.getByTestId("notify-button").click();
  const panel = page.getByTestId("notify-panel");
  await panel.getByTestId("notify-device-name").fill("E2E phone");
  await panel.getByTestId("notify-subscribe").click();
  await expect(panel.getByTestId("notify-subscribed")).toContainText("E2E phone");
  await expect(panel.getByTestId("notify-device").filter({ hasText: "E2E phone" })).toContainText("this device");
  const listed = await devices();
  expect(listed.devices).toHaveLength(before + 1);
  expect(listed.devices.find((d) => d.device === "E2E phone")).toMatchObject({ service: new URL(ENDPOINT).host, lastPushAt: null });

  await panel.getByTestId("notify-mute").click();
  await expect(panel.getByTestId("notify-mute")).toHaveAttribute("aria-checked", "true");
  expect((await devices()).mutedSessions).toContain(session.id);
  await panel.getByTestId("notify-mute").click();
  await expect(panel.getByTestId("notify-mute")).toHaveAttribute("aria-checked", "false");
  expect((await devices()).mutedSessions).not.toContain(session.id);

  await panel.getByRole("button", { name: "Remove E2E phone" }).click();
  await expect(panel.getByTestId("notify-subscribe")).toBeVisible();
  expect((await devices()).devices.map((d) => d.device)).not.toContain("E2E phone");
  expect(await page.evaluate(async () => (await navigator.serviceWorker.ready).pushManager.getSubscription())).toBeNull();
});
