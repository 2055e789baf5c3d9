import { expect, test } from "@playwright/test";
import { Api, ChatPage } from "./chat-page";

/** Answers whichever of the evening plan's two cards a tab shows first. */
async function answerShownCard(tab: ChatPage) {
  if ((await tab.page.getByTestId("question-owner").getAttribute("data-owner")) === "order-coffee") {
    await tab.option("Flat white").click();
  } else {
    await tab.page.getByTestId("question-checkbox").first().check();
    await tab.page.getByTestId("question-submit").click();
  }
}

test.describe("durable-run features in the browser", () => {
  test("a reply schema that is no flat form takes JSON, its format behind a disclosure, shows the schema's reason for a bad answer, and accepts a good one", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    const schema = { type: "array", items: { type: "integer", minimum: 1 }, minItems: 1 };
    const run = await api.startRun(session.id, "test.ask", { prompt: "Which ports?", schema });
    await tab.expectCard("Which ports?");
    await expect(tab.page.getByTestId("question-owner")).toHaveText("Test ask");
    await expect(tab.page.getByTestId("form-input")).toHaveCount(0);
    // The raw schema is not the first thing a person reads: it waits behind a disclosure.
    const disclosure = tab.card().locator("details");
    await expect(disclosure.locator("summary")).toHaveText("Show the expected format");
    await expect(disclosure).not.toHaveAttribute("open");

    const input = tab.page.getByTestId("question-text-input");
    await input.fill("[0]");
    await tab.page.getByTestId("question-submit").click();
    await expect(tab.page.getByTestId("question-error")).toContainText("/0 must be >= 1");
    await tab.expectCard("Which ports?");

    await input.fill("[80, 443]");
    await tab.page.getByTestId("question-submit").click();
    await tab.expectNoCard();
    await expect.poll(async () => (await api.run(run.id)).result).toEqual({ outcome: "answered", value: [80, 443] });
  });

  test("two child runs ask at once, each card labelled with its owner, and the parent finishes with both answers", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tabs = await Promise.all([0, 1].map(() => ChatPage.open(context, session.id)));
    await tabs[0]!.send("/evening");
    for (const tab of tabs) {
      await expect(tab.card()).toBeVisible();
      await expect(tab.page.getByTestId("question-position")).toHaveText(/1 of 2/);
    }
    const pending = await api.waitForPending(session.id, 2);
    expect(pending.map((q) => q.owner).sort()).toEqual(["order-coffee", "pick-toppings"]);
    expect(new Set(pending.map((q) => q.rootRunId)).size).toBe(1);

    // The first card in one tab, the second in the other.
    await answerShownCard(tabs[0]!);
    await expect(tabs[1]!.page.getByTestId("question-position")).toHaveCount(0);
    await answerShownCard(tabs[1]!);

    for (const tab of tabs) {
      await tab.expectNoCard();
      await expect(tab.messages("agent").filter({ hasText: "Evening planned." })).toBeVisible();
    }
  });

  test("while a session waits for an answer, a new chat turn over REST is refused as session_busy", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    await tab.send("/deploy");
    await tab.expectCard("Which environment should I deploy to?");
    const res = await request.post(`/api/sessions/${session.id}/messages`, { data: { text: "/coffee" } });
    expect(res.status()).toBe(409);
    expect((await res.json()).error).toMatchObject({ code: "session_busy", message: expect.stringContaining("Which environment") });
  });
});
