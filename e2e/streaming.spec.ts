import { expect, test } from "@playwright/test";
import { Api, ChatPage } from "./chat-page";

/** Streaming replies (`test.stream`: a little Markdown, then "w1 w2 …"), started over REST. */
test.describe("streaming replies", () => {
  test("a reload mid-stream shows the partial text at once and then the rest; the stored reply renders as Markdown", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    const streaming = tab.page.getByTestId("streaming-message");

    // Long enough (15 s) to be still streaming after the reload on a loaded machine (7.8 s once ended first).
    await api.startRun(session.id, "test.stream", { words: 500, delayMs: 30 });
    await expect(streaming).toContainText("w25 ");
    await expect(streaming.getByRole("listitem")).toHaveCount(2);
    await tab.page.screenshot({ path: "test-results/streaming-desktop.png" });

    await tab.page.reload();
    await expect(tab.page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
    // The snapshot brought what had arrived: the words before the reload are there at once, in the
    // first words the stream shows (without them, it would show only the words streamed since).
    await expect(streaming).toContainText(/w\d+ /);
    expect(await streaming.getByTestId("message-text").innerText()).toContain("w25 ");
    await expect(streaming).not.toContainText("w500.");
    const partial = (await streaming.getByTestId("message-text").innerText()).length;

    // Then the rest streams in, and the stored message replaces the stream.
    const reply = tab.messages("agent").filter({ hasText: "w500." });
    await expect(reply).toHaveCount(1, { timeout: 30_000 });
    await expect(streaming).toHaveCount(0);
    expect((await reply.getByTestId("message-text").innerText()).length).toBeGreaterThan(partial);
    await expect(reply.locator("[data-stopped]")).toHaveCount(0);
    await expect(reply.getByTestId("message-stopped")).toHaveCount(0);
    await expect(reply.locator("strong")).toHaveText("Streaming");
    await expect(reply.locator("code")).toHaveText("inline code");
    await expect(reply.getByRole("link", { name: "a link" })).toHaveAttribute("rel", /noopener/);
    await expect(reply.getByRole("listitem")).toHaveText(["first item", "second item"]);
  });

  test("Stop during a stream keeps the partial reply, marked as stopped, on a phone too", async ({ browser, context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    const phoneContext = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState: await context.storageState() });
    const phone = await ChatPage.open(phoneContext, session.id);

    const run = await api.startRun(session.id, "test.stream", { words: 2_000, delayMs: 30 });
    await expect(tab.page.getByTestId("streaming-message")).toContainText("w30 ");
    await expect(phone.page.getByTestId("streaming-message")).toContainText("w30 ");
    await tab.page.getByTestId("stop-run").click();

    for (const t of [tab, phone]) {
      const stopped = t.page.locator('[data-testid="message"][data-role="agent"][data-stopped="true"]');
      await expect(stopped).toHaveCount(1);
      await expect(stopped).toContainText("w30 ");
      await expect(stopped).not.toContainText("w2000.");
      await expect(stopped.getByTestId("message-stopped")).toHaveText("stopped");
      await expect(t.page.getByTestId("streaming-message")).toHaveCount(0);
    }
    await expect.poll(async () => (await api.run(run.id)).status).toBe("cancelled");
    await phone.page.screenshot({ path: "test-results/streaming-stopped-phone.png" });

    // A reload shows the same stopped reply, from the database.
    await tab.page.reload();
    await expect(tab.page.locator('[data-testid="message"][data-role="agent"][data-stopped="true"]')).toContainText("w30 ");
    await tab.page.screenshot({ path: "test-results/streaming-stopped-desktop.png" });
    await phoneContext.close();
  });
});
