import { expect, test } from "@playwright/test";
import type { Question } from "../lib/protocol/question";
import { questionLink } from "../lib/protocol/question-notification";

/** A push's url (tapping the notification) opens the session with the question's card as its anchor. */

test("a push's link opens the chat on the question's card", async ({ page, request }) => {
  const res = await request.post("/api/asks", {
    data: { question: "Open me from a notification?", options: ["Yes", "No"], from: "push link" },
    headers: { "idempotency-key": `e2e-push-link-${test.info().repeatEachIndex}-${test.info().retry}` },
  });
  expect(res.status()).toBe(201);
  const question = (await res.json()) as Question;
  await page.goto(questionLink(question));
  const card = page.locator(`[id="question-${question.id}"]`);
  await expect(card).toBeVisible();
  await expect(card).toHaveAttribute("data-testid", "question-card");
  await expect(card).toContainText("Open me from a notification?");
});
