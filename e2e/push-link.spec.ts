import { expect, test } from "@playwright/test";
import { questionLink } from "../lib/protocol/question-notification";
import { Api } from "./chat-page";

/** A push's url (tapping the notification) opens the session with the question's card as its anchor. */

test("a push's link opens the chat on the question's card, the one it names when several wait; a new link in the open tab shows its own", async ({ page, request }) => {
  const api = new Api(request);
  const session = await api.createSession();
  const ask = (question: string, key: string) => api.ask({ question, options: ["Yes", "No"], from: "push link", session: session.id }, `e2e-push-link-${key}`);
  const older = await ask("Asked first?", "older");
  const question = await ask("Open me from a notification?", "newer");
  await page.goto(questionLink(question));
  const card = page.locator(`[id="question-${question.id}"]`);
  await expect(card).toBeVisible();
  await expect(card).toHaveAttribute("data-testid", "question-card");
  await expect(card).toContainText("Open me from a notification?");
  await expect(page.getByTestId("question-position")).toHaveText(/2 of 2/);

  // The service worker takes a tab already on the chat to the tapped card: only the anchor changes.
  await page.goto(questionLink(older));
  await expect(page.locator(`[id="question-${older.id}"]`)).toContainText("Asked first?");
  await expect(page.getByTestId("question-position")).toHaveText(/1 of 2/);
});
