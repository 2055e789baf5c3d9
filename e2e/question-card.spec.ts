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
    // A deadline short enough to show its countdown (5 minutes at most), far longer than the test takes on a loaded
    // machine: /countdown's 20 seconds ran out under three Playwright workers, and its card went before the answer.
    await api.startRun(session.id, "test.ask", { prompt: "Type the launch code.", timeoutMs: 240_000 });
    await tab.expectCard("Type the launch code.");
    const [question] = await api.waitForPending(session.id);
    await expect(tab.page.getByTestId("question-countdown")).toBeVisible();

    // Two seconds and more gone: a countdown started again at the reload would show 4:00 or 3:59.
    await tab.page.waitForTimeout(2_000);
    const reloaded = Date.now();
    await tab.page.reload();
    await tab.expectCard("Type the launch code.");
    const shown = await tab.page.getByTestId("question-countdown").innerText();
    const read = Date.now();
    const secondsLeft = Number(
      shown
        .match(/(\d+):(\d+)/)!
        .slice(1)
        .reduce((m, s) => String(Number(m) * 60 + Number(s))),
    );
    expect(secondsLeft).toBeLessThanOrEqual(238);
    // The seconds left to the stored expiry (rounded up), as the page counted them at some moment
    // between the reload and the reading: however long a loaded machine took for either.
    const left = (at: number) => Math.ceil((Date.parse(question!.expiresAt!) - at) / 1000);
    expect(secondsLeft).toBeLessThanOrEqual(left(reloaded));
    expect(secondsLeft).toBeGreaterThanOrEqual(left(read));

    // A tab opened later shows the same pending question.
    const another = await ChatPage.open(context, session.id);
    await another.expectCard("Type the launch code.");
    await another.page.getByTestId("question-text-input").fill("XJ-9");
    await another.page.getByTestId("question-submit").click();
    await tab.expectNoCard();
    await expect(tab.messages("agent").filter({ hasText: 'You answered: "XJ-9"' })).toBeVisible();
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
