import { expect, test } from "@playwright/test";
import { Api, ChatPage } from "./chat-page";

test.describe("a question shared by three tabs of one session", () => {
  test("the card shows in every tab, the first answer wins and the other tabs retract", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tabs = await Promise.all([0, 1, 2].map(() => ChatPage.open(context, session.id)));

    await tabs[0]!.send("/deploy");
    for (const tab of tabs) await tab.expectCard("Which environment should I deploy to?");
    await expect(tabs[1]!.option("staging")).toBeVisible();

    await tabs[1]!.option("staging").click();

    for (const tab of tabs) await tab.expectNoCard();
    // Every tab shows what was answered and sees the run continue to its end.
    for (const tab of tabs) {
      await expect(tab.page.locator('[data-testid="question-record"][data-status="answered"]')).toContainText("staging");
      await expect(tab.messages("agent").filter({ hasText: "Deployed to staging" })).toBeVisible();
    }
    const [question] = await api.pending(session.id);
    expect(question).toBeUndefined();

    // A reload still shows what was answered.
    await tabs[2]!.page.reload();
    await expect(tabs[2]!.page.locator('[data-testid="question-record"][data-status="answered"]')).toContainText("staging");
  });

  test("a late reply over REST is told the question was already answered", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    await tab.send("/coffee");
    const [question] = await api.waitForPending(session.id);
    await tab.expectCard("What would you like to drink?");
    await tab.option("Espresso").click();
    await tab.expectNoCard();

    const late = await api.reply(question!.id, "Green tea");
    expect(late.status()).toBe(200);
    expect(await late.json()).toMatchObject({ outcome: "already_answered", question: { answer: "Espresso" } });
  });

  test("a reload replays the pending card, its countdown continuing from the stored expiry", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    await tab.send("/countdown");
    await tab.expectCard("Type the launch code within 20 seconds.");
    const [question] = await api.waitForPending(session.id);
    await expect(tab.page.getByTestId("question-countdown")).toBeVisible();

    await tab.page.waitForTimeout(2_000);
    await tab.page.reload();
    await tab.expectCard("Type the launch code within 20 seconds.");
    const shown = await tab.page.getByTestId("question-countdown").innerText();
    const secondsLeft = Number(
      shown
        .match(/(\d+):(\d+)/)!
        .slice(1)
        .reduce((m, s) => String(Number(m) * 60 + Number(s))),
    );
    const expected = (Date.parse(question!.expiresAt!) - Date.now()) / 1000;
    expect(secondsLeft).toBeLessThanOrEqual(18);
    expect(Math.abs(secondsLeft - expected)).toBeLessThanOrEqual(2);

    // A tab opened later shows the same pending question.
    const another = await ChatPage.open(context, session.id);
    await another.expectCard("Type the launch code within 20 seconds.");
    await another.page.getByTestId("question-text-input").fill("XJ-9");
    await another.page.getByTestId("question-submit").click();
    await tab.expectNoCard();
    await expect(tab.messages("agent").filter({ hasText: 'Launch code "XJ-9" accepted' })).toBeVisible();
  });

  test("a REST reply reaches the waiting worker through the running server", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tabs = await Promise.all([0, 1, 2].map(() => ChatPage.open(context, session.id)));
    const run = await api.startRun(session.id, "pick-toppings");
    for (const tab of tabs) await tab.expectCard("Which toppings do you want?");
    const [question] = await api.waitForPending(session.id);

    const res = await api.reply(question!.id, ["Basil", "Olives"]);
    expect(await res.json()).toMatchObject({ outcome: "answered" });

    for (const tab of tabs) {
      await tab.expectNoCard();
      await expect(tab.messages("agent").filter({ hasText: "Pizza with Basil, Olives" })).toBeVisible();
    }
    await expect.poll(async () => (await api.run(run.id)).status).toBe("succeeded");
    expect((await api.run(run.id)).result).toEqual({ toppings: ["Basil", "Olives"] });
  });

  test("Stop ends the run and retracts the card in every tab", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tabs = await Promise.all([0, 1, 2].map(() => ChatPage.open(context, session.id)));
    await tabs[0]!.send("/archive");
    for (const tab of tabs) await tab.expectCard("Archive all 5 emails?");
    await expect(tabs[2]!.page.getByTestId("question-detail")).toContainText("Weekly digest");

    await tabs[2]!.page.getByTestId("stop-run").click();

    for (const tab of tabs) {
      await tab.expectNoCard();
      await expect(tab.page.getByTestId("run-status")).toHaveAttribute("data-status", "cancelled");
    }
    expect(await api.pending(session.id)).toEqual([]);
  });
});

test.describe("one turn at a time", () => {
  test("while a turn works, every tab's composer offers Stop instead of Send and keeps its draft; Stop ends the turn everywhere", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tabs = await Promise.all([0, 1].map(() => ChatPage.open(context, session.id)));
    await tabs[0]!.send("/report");
    for (const tab of tabs) {
      await expect(tab.page.getByTestId("composer-stop")).toBeVisible();
      await expect(tab.page.getByTestId("composer-send")).toHaveCount(0);
    }
    await tabs[1]!.page.getByTestId("composer-input").fill("a coffee please");
    const busy = await request.post(`/api/sessions/${session.id}/messages`, { data: { text: "/coffee" } });
    expect(busy.status()).toBe(409);
    expect((await busy.json()).error).toMatchObject({ code: "session_busy" });

    await tabs[0]!.page.getByTestId("composer-stop").click();
    for (const tab of tabs) {
      await expect(tab.page.getByTestId("run-status")).toHaveAttribute("data-status", "cancelled");
      await expect(tab.page.getByTestId("composer-send")).toBeVisible();
    }
    await expect(tabs[1]!.page.getByTestId("composer-input")).toHaveValue("a coffee please");
    await tabs[1]!.page.getByTestId("composer-send").click();
    // The kept draft goes to the chat agent, whose model asks which size (its clarify card).
    await tabs[1]!.expectCard("What size should the coffee be?");
  });
});

test.describe("answering from the keyboard", () => {
  test("a confirm, a multi-select and a decline work without the mouse", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);

    await tab.send("/shirt");
    await tab.expectCard("Which color?");
    await expect(tab.page.getByTestId("question-position")).toHaveText(/1 of 2/);
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
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);

    await tab.send("/shirt");
    await tab.expectCard("Which color?");
    await expect(tab.page.getByTestId("question-position")).toHaveText(/1 of 2/);
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
