import { expect, test } from "@playwright/test";
import { Api, ChatPage } from "./chat-page";

/** The chat agent with the offline scripted model the e2e server runs. */
const SIMULATED_KEY = "sk-scripted-FAKE0123456789abcdef";

test.describe("agent chat", () => {
  test("a message streams a reply from the model that renders as Markdown", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    await tab.send("What can you do?");
    const reply = tab.messages("agent").filter({ hasText: "offline scripted assistant" });
    await expect(reply).toHaveCount(1);
    await expect(tab.page.getByTestId("streaming-message")).toHaveCount(0);
    // `shell` in backticks is inline code; the reply is not shown as raw Markdown.
    await expect(reply.locator("code").first()).toHaveText("shell");
    await expect(reply).not.toContainText("`shell`");
  });

  test("a provider error shows a readable message and a Retry that resends the turn; the key never shows", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    await tab.send("Please simulate a provider error");

    const failure = tab.messages("system").filter({ hasText: "Run chat failed:" });
    await expect(failure).toHaveCount(1);
    await expect(failure).toContainText("The model provider (scripted) failed (HTTP 503). Retry in a moment.");
    const retry = tab.page.getByTestId("retry-turn");
    await expect(retry).toBeVisible();
    await expect(tab.composer()).toBeVisible();
    await tab.page.screenshot({ path: "test-results/agent-chat-provider-error.png" });

    const body = await tab.page.locator("body").innerText();
    expect(body).not.toContain(SIMULATED_KEY);
    expect(body).not.toContain("Bearer");
    // Nor in a response: the session (its messages) and its runs (their errors).
    for (const url of [`/api/sessions/${session.id}`, `/api/sessions/${session.id}/runs`]) {
      const res = await request.get(url);
      expect(res.ok()).toBe(true);
      const text = await res.text();
      expect(text).toContain("HTTP 503");
      expect(text).not.toContain(SIMULATED_KEY);
    }

    await retry.click();
    await expect(tab.messages("user").filter({ hasText: "Please simulate a provider error" })).toHaveCount(2);
    await expect(tab.messages("agent").filter({ hasText: "retry went through" })).toHaveCount(1);
    await expect(retry).toHaveCount(0);
    expect(await tab.page.locator("body").innerText()).not.toContain(SIMULATED_KEY);
  });
});
