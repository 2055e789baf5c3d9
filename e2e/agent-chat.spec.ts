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
    // Its own replies say how to connect a real model, and the header says which model this is.
    await expect(reply).toContainText("start Ollama or set OPENAI_BASE_URL for a real model");
    await expect(tab.page.getByTestId("model-label")).toContainText("Offline script");
    await expect(tab.page.getByTestId("streaming-message")).toHaveCount(0);
    // `shell` in backticks is inline code; the reply is not shown as raw Markdown.
    await expect(reply.locator("code").first()).toHaveText("shell");
    await expect(reply).not.toContainText("`shell`");
  });

  test("a provider error shows a readable message and a Retry that runs the turn again; the key never shows", async ({ context, request }) => {
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
    await expect(tab.messages("agent").filter({ hasText: "retry went through" })).toHaveCount(1);
    // The failed turn ran again: the message was not posted a second time.
    await expect(tab.messages("user").filter({ hasText: "Please simulate a provider error" })).toHaveCount(1);
    await expect(tab.messages("agent").filter({ hasText: "retry went through" })).toHaveCount(1);
    await expect(retry).toHaveCount(0);
    expect(await tab.page.locator("body").innerText()).not.toContain(SIMULATED_KEY);
  });

  test("tool calls show as compact rows that expand to their input and result, on a phone too", async ({ browser, context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    await tab.send("Run the tests and write the changelog");

    await expect(tab.page.getByTestId("approval-command")).toHaveText("npm test");
    await tab.page.getByTestId("approval-allow-once").click();
    await expect(tab.page.getByTestId("approval-title")).toContainText("write_file");
    // The new card's first moments take no keys (the Enter below would be dropped).
    await tab.keysReady();
    await tab.page.getByTestId("approval-reject").click();
    await tab.page.getByTestId("approval-reject-message").fill("not now");
    await tab.page.getByTestId("approval-reject-message").press("Enter");
    await expect(tab.messages("agent").filter({ hasText: "I left the changelog as it was" })).toHaveCount(1);

    const rows = tab.page.locator('[data-testid="question-record"][data-kind="approval"]');
    await expect(rows).toHaveCount(2);
    const [shell, write] = [rows.nth(0), rows.nth(1)];
    await expect(shell.getByTestId("question-record-asked")).toContainText("shell npm test");
    await expect(shell.getByTestId("question-record-outcome")).toHaveText("Allowed once");
    await expect(write.getByTestId("question-record-outcome")).toHaveText("Rejected: not now");
    // Compact until opened.
    await expect(tab.page.getByTestId("tool-call-details")).toHaveCount(0);

    await shell.getByTestId("tool-call-toggle").click();
    await expect(shell.getByTestId("tool-call-toggle")).toHaveAttribute("aria-expanded", "true");
    await expect(shell.getByTestId("tool-call-input")).toContainText("command: npm test");
    await expect(shell.getByTestId("tool-call-result")).toHaveAttribute("data-state", "done");
    await expect(shell.getByTestId("tool-call-result")).toContainText("greets a person by name");
    await write.getByTestId("tool-call-toggle").click();
    await expect(write.getByTestId("tool-call-input")).toContainText("path: docs/changelog.md");
    await expect(write.getByTestId("tool-call-result")).toHaveAttribute("data-state", "not_run");
    await tab.page.screenshot({ path: "test-results/agent-chat-tool-rows-desktop.png" });

    // Closing folds the row back.
    await shell.getByTestId("tool-call-toggle").click();
    await expect(shell.getByTestId("tool-call-details")).toHaveCount(0);

    const phoneContext = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState: await context.storageState() });
    const phone = await ChatPage.open(phoneContext, session.id);
    const phoneShell = phone.page.locator('[data-testid="question-record"][data-kind="approval"]').first();
    await phoneShell.getByTestId("tool-call-toggle").click();
    await expect(phoneShell.getByTestId("tool-call-result")).toContainText("greets a person by name");
    await phone.page.screenshot({ path: "test-results/agent-chat-tool-rows-phone.png" });
    await phoneContext.close();
  });
});
