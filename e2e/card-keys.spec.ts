import { expect, test, type APIRequestContext, type BrowserContext } from "@playwright/test";
import { Api, ChatPage } from "./chat-page";

/** A question card answered from the keyboard, and its key guard (playwright.config.ts runs this file alone). */

/** A new chat in one tab, showing the first of /shirt's two cards. */
async function shirtCards(context: BrowserContext, request: APIRequestContext) {
  const api = new Api(request);
  const session = await api.createSession();
  const tab = await ChatPage.open(context, session.id);
  await tab.send("/shirt");
  await tab.expectCard("Which color?");
  await expect(tab.page.getByTestId("question-position")).toHaveText(/1 of 2/);
  return { api, session, tab };
}

test.describe("answering from the keyboard", () => {
  test("a confirm, a multi-select and a decline work without the mouse", async ({ context, request }) => {
    const { tab } = await shirtCards(context, request);
    await tab.page.keyboard.press("2"); // the second option: Green
    await tab.expectCard("Which size?");
    await tab.page.keyboard.press("3"); // L
    await expect(tab.messages("agent").filter({ hasText: "A L shirt in Green." })).toBeVisible();

    await tab.send("/lunch");
    await tab.expectCard("Lunch at which time? (20 s, then I pick 12:30)");
    await tab.page.getByTestId("question-decline").focus();
    await tab.page.keyboard.press("Enter");
    const feedback = tab.page.getByTestId("question-decline-message");
    if (await feedback.isVisible()) {
      await feedback.fill("busy today");
      await feedback.press("Enter");
    }
    await tab.expectNoCard();
    await expect(tab.messages("agent").filter({ hasText: "No lunch booked." })).toBeVisible();
  });

  test("Enter sends a multi-select's ticks, from the card and from a ticked box", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);

    await tab.send("/pizza");
    await tab.expectCard("Which toppings do you want?");
    await tab.page.keyboard.press("1");
    await tab.page.keyboard.press("3");
    await expect(tab.page.getByTestId("question-checkbox").and(tab.page.locator(":checked"))).toHaveCount(2);
    await tab.page.keyboard.press("Enter");
    await tab.expectNoCard();
    await expect(tab.messages("agent").filter({ hasText: "Pizza with Mozzarella, Olives." })).toBeVisible();

    // Focus on the Decline button: Enter presses it, it does not send the ticks.
    await tab.send("/pizza");
    await tab.expectCard("Which toppings do you want?");
    await tab.page.keyboard.press("2");
    await tab.page.getByTestId("question-decline").focus();
    await tab.page.keyboard.press("Enter");
    await expect(tab.page.getByTestId("question-decline-message")).toBeFocused();
    await expect(tab.card()).toBeVisible();
  });

  test("a key pressed for one question never answers the next one", async ({ context, request }) => {
    const { api, session, tab } = await shirtCards(context, request);
    await tab.page.keyboard.press("2"); // Green
    await expect(tab.prompt()).toHaveText("Which size?");
    // Typed on, as the next card came: nothing is answered, and the card says why.
    await tab.page.keyboard.press("3");
    await expect(tab.page.getByTestId("question-key-note")).toHaveText(/not used here/);
    await expect(tab.card()).toHaveAttribute("data-keys", "focus");
    const [size] = await api.pending(session.id);
    expect(size).toMatchObject({ prompt: "Which size?", status: "pending" });
    // After the pause the first key only gives the card the keys; the next one answers.
    await tab.page.keyboard.press("3");
    await expect(tab.page.getByTestId("question-key-note")).toHaveText(/press a key again/);
    await expect(tab.card()).toHaveAttribute("data-keys", "ready");
    expect(await api.pending(session.id)).toHaveLength(1);
    await tab.page.keyboard.press("3"); // L
    await expect(tab.messages("agent").filter({ hasText: "A L shirt in Green." })).toBeVisible();
    await tab.expectNoCard();
    await expect(tab.page.getByText(/Already answered/)).toHaveCount(0);
  });
});
