import { expect, test, type APIRequestContext } from "@playwright/test";
import type { Question } from "../lib/protocol/question";
import { questionLink } from "../lib/protocol/question-notification";
import { Api } from "./chat-page";

/** A push's url (tapping the notification) opens the session with the question's card as its anchor. */

async function ask(request: APIRequestContext, question: string, session: string): Promise<Question> {
  const res = await request.post("/api/asks", {
    data: { question, options: ["Yes", "No"], from: "push link", session },
    headers: { "idempotency-key": `e2e-push-link-${question}-${test.info().repeatEachIndex}-${test.info().retry}` },
  });
  expect(res.status()).toBe(201);
  return (await res.json()) as Question;
}

test("a push's link opens the chat on the question's card, the one it names when several wait; a new link in the open tab shows its own", async ({ page, request }) => {
  const session = await new Api(request).createSession();
  const older = await ask(request, "Asked first?", session.id);
  const question = await ask(request, "Open me from a notification?", session.id);
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
