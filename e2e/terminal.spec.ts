import { expect, test } from "@playwright/test";
import { TEST_TOKEN } from "../tests/helpers/server-process";
import { Terminal, tmuxMissing } from "../tests/helpers/terminal";
import { Api, ChatPage } from "./chat-page";

const missing = tmuxMissing();

test.describe("the terminal client beside a browser tab", () => {
  test.skip(missing !== null, `skipped: ${missing}`);
  let terminal: Terminal | undefined;
  test.afterEach(async ({}, testInfo) => {
    if (terminal) await testInfo.attach("terminal.txt", { body: terminal.screen({ history: true }), contentType: "text/plain" });
    terminal?.close();
    terminal = undefined;
  });

  const openTerminal = (sessionId: string, baseURL: string) => {
    terminal = Terminal.start(["node", "bin/parley.mjs", "chat", sessionId, "--url", baseURL, "--token", TEST_TOKEN]);
    return terminal;
  };

  test("a question answered in the terminal is retracted in the browser, which says where it was answered", async ({ context, request, baseURL }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    const term = openTerminal(session.id, baseURL!);
    await term.waitFor("● connected");

    await tab.send("/coffee");
    await tab.expectCard("What would you like to drink?");
    await term.waitFor(/What would you like to drink\?[\s\S]*❯ 1\. Espresso/);
    await term.ready();

    await term.press("Down", "Enter");
    await tab.expectNoCard();
    await expect(tab.page.getByTestId("question-record-outcome").last()).toContainText("Flat white");
    await expect(tab.page.getByTestId("question-record-via").last()).toContainText("in a terminal");
    await expect(tab.messages("agent").filter({ hasText: "One Flat white coming up" })).toBeVisible();
    await term.waitFor("One Flat white coming up");
  });

  test("a card answered in the browser first leaves the terminal's prompt, which says so", async ({ context, request, baseURL }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    const term = openTerminal(session.id, baseURL!);
    await term.waitFor("● connected");

    term.type("/deploy");
    await term.press("Enter");
    await term.waitFor("Which environment should I deploy to?");
    await tab.expectCard("Which environment should I deploy to?");
    await tab.option("staging").click();
    await tab.expectNoCard();

    await term.waitForGone("Esc decline");
    // The same person (the server token's) answered in the browser: "by you".
    await term.waitFor('Answered "staging" by you, in a browser tab (before it was answered here)');
    await term.waitFor("Deployed to staging");
  });
});
