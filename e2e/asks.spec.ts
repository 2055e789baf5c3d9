import { expect, test } from "@playwright/test";
import { Api, ChatPage } from "./chat-page";

/** An ask from outside Parley (a script's POST /api/asks) is an ordinary card in every tab of its chat. */

test("a script's ask shows in two tabs (one a phone) as its asker's card; answered in one, it retracts in the other and the script's held read gets the answer", async ({ context, request }) => {
  const question = await new Api(request).ask({ question: "Ship 2.0 today?", options: ["Ship it", "Hold"], from: "release bot (CI)" }, "e2e-ship");
  const tabs = await Promise.all([0, 1].map(() => ChatPage.open(context, question.sessionId)));
  await tabs[1]!.page.setViewportSize({ width: 390, height: 844 });
  for (const tab of tabs) {
    await tab.expectCard("Ship 2.0 today?");
    await expect(tab.page.getByTestId("question-owner")).toHaveText("release bot (CI)");
  }
  const held = request.get(`/api/questions/${question.id}?wait=20`, { timeout: 25_000 });
  await tabs[1]!.keysReady();
  await tabs[1]!.option("Ship it").click();
  for (const tab of tabs) await tab.expectNoCard();
  expect(await (await held).json()).toMatchObject({ id: question.id, status: "answered", answer: "Ship it", closedBy: "socket" });
});
