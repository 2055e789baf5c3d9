import { expect, test, type APIRequestContext, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { Api, ChatPage } from "./chat-page";
import { answerAs, contextOf, peopleOnServer, shareWith } from "./people";
import type { Person } from "../tests/helpers/people";

/**
 * One session shared by several people, each in their own browser: a question for one of them is
 * read-only for the others, and an approval that needs two of three counts each person once,
 * whichever tabs they vote from, in every tab of everyone.
 */

const card = (tab: ChatPage) => tab.page.getByTestId("question-card");

async function tabsOf(browser: Browser, person: Person, baseURL: string, sessionId: string, count = 1): Promise<ChatPage[]> {
  const context = await contextOf(browser, baseURL, person);
  return Promise.all(Array.from({ length: count }, () => ChatPage.open(context, sessionId)));
}

/** The owner's new chat shared with bob and carol, open in one tab of each of the three. */
async function sharedWithBobAndCarol(browser: Browser, context: BrowserContext, request: APIRequestContext, baseURL: string) {
  const api = new Api(request);
  const [bob, carol] = await peopleOnServer(["bob", "carol"]);
  const session = await api.createSession();
  await shareWith(request, session.id, ["bob", "carol"]);
  const owner = await ChatPage.open(context, session.id);
  const [bobTab] = await tabsOf(browser, bob!, baseURL, session.id);
  const [carolTab] = await tabsOf(browser, carol!, baseURL, session.id);
  return { api, session, owner, bobTab, carolTab };
}

/**
 * Clicks a button in each page at the same moment (each page waits for one wall-clock instant, so
 * the clicks do not queue behind one another's round trips): true where it was still there to
 * click. A page that hears another's click first may already have hidden it.
 */
const clickTogether = async (pages: Page[], testId: string) => {
  const at = Date.now() + 500;
  return Promise.all(
    pages.map((page) =>
      page.evaluate(
        ({ id, at }) =>
          new Promise<boolean>((resolve) =>
            setTimeout(
              () => {
                const button = document.querySelector<HTMLButtonElement>(`[data-testid="${id}"]`);
                button?.click();
                resolve(button !== null);
              },
              Math.max(0, at - Date.now()),
            ),
          ),
        { id: testId, at },
      ),
    ),
  );
};

test.describe("the question card of a shared session", () => {
  test("a question for carol is read-only for bob and the owner: it says whom it waits for and keys do nothing; carol answers it", async ({ browser, context, request, baseURL }) => {
    const { api, session, owner, bobTab, carolTab } = await sharedWithBobAndCarol(browser, context, request, baseURL!);

    await api.startRun(session.id, "test.ask", { prompt: "Ship release 2.4 to production?", confirm: true, detail: "12 commits since 2.3", answerers: ["carol"] });
    const [asked] = await api.waitForPending(session.id);

    for (const tab of [owner, bobTab!]) {
      await expect(card(tab)).toHaveAttribute("data-readonly", "");
      await expect(card(tab)).toHaveAttribute("data-mode", "watch");
      await expect(tab.prompt()).toHaveText("Ship release 2.4 to production?");
      await expect(tab.page.getByTestId("question-detail")).toHaveText("12 commits since 2.3");
      await expect(tab.page.getByTestId("question-waiting")).toHaveText("Waiting for carol");
      await expect(card(tab).getByRole("button", { name: /yes|no|decline/i })).toHaveCount(0);
      await expect(card(tab).locator("input, textarea")).toHaveCount(0);
      // The session waits: the chat input stays hidden, as for any card.
      await expect(tab.composer()).toHaveCount(0);
    }

    // Keys typed into the read-only card answer nothing, decline nothing, open nothing.
    await card(bobTab!).focus();
    for (const key of ["Enter", "y", "1", "2", "Escape", "Space"]) await bobTab!.page.keyboard.press(key);
    await bobTab!.page.waitForTimeout(1_000);
    await expect(bobTab!.page.getByTestId("question-error")).toHaveCount(0);
    await expect(bobTab!.page.getByTestId("question-decline-message")).toHaveCount(0);
    await expect(card(bobTab!)).toHaveAttribute("data-readonly", "");
    expect((await api.pending(session.id)).map((q) => q.id)).toEqual([asked!.id]);

    // Carol's card is hers: no waiting line, its keys answer.
    await expect(card(carolTab!)).not.toHaveAttribute("data-readonly");
    await expect(carolTab!.page.getByTestId("question-waiting")).toHaveCount(0);
    await carolTab!.keysReady();
    await carolTab!.page.keyboard.press("1");

    for (const tab of [owner, bobTab!, carolTab!]) {
      await tab.expectNoCard();
      await expect(tab.page.locator('[data-testid="question-record"][data-status="answered"]')).toContainText("Yes");
    }
  });

  test("a 2-of-3 approval: bob's votes from two tabs count once in every tab of everyone, carol's makes two and every card retracts; the record names them", async ({
    browser,
    context,
    request,
    baseURL,
  }) => {
    const api = new Api(request);
    const [bob, carol] = await peopleOnServer(["bob", "carol", "dave"]);
    const session = await api.createSession();
    await shareWith(request, session.id, ["bob", "carol", "dave"]);
    const owner = await ChatPage.open(context, session.id);
    const bobTabs = await tabsOf(browser, bob!, baseURL!, session.id, 2);
    const [carolTab] = await tabsOf(browser, carol!, baseURL!, session.id);
    const everyone = [owner, ...bobTabs, carolTab!];

    await api.startRun(session.id, "test.team-tool", { tool: "shell", input: { command: "npm run deploy" }, answerers: ["bob", "carol", "dave"], approvals: { required: 2 } });
    const [asked] = await api.waitForPending(session.id);

    for (const tab of [...bobTabs, carolTab!]) {
      await expect(card(tab)).toHaveAttribute("data-kind", "approval");
      await expect(tab.page.getByTestId("approval-count")).toHaveText("0 of 2 approved");
      await expect(tab.page.getByTestId("approval-allow-once")).toBeVisible();
      await expect(tab.page.getByTestId("approval-reject")).toBeVisible();
      // Several people's approval is allowed once at most: no Allow always.
      await expect(tab.page.getByTestId("approval-allow-always")).toHaveCount(0);
      await expect(tab.page.getByTestId("approval-always-hint")).toHaveCount(0);
    }
    // The owner is not among its approvers.
    await expect(owner.page.getByTestId("question-waiting")).toHaveText("Waiting for bob, carol or dave");

    // Bob allows in both of his tabs at once, then once more over REST: one vote.
    await Promise.all(bobTabs.map((tab) => tab.keysReady()));
    const clicked = await clickTogether(
      bobTabs.map((t) => t.page),
      "approval-allow-once",
    );
    // Both tabs' clicks, or one when the other's vote reached it first: either way bob has voted, and votes again over REST.
    expect(clicked).toContain(true);
    expect((await answerAs(request, bob!, asked!.id, "once")).outcome).toBe("voted");

    for (const tab of everyone) await expect(tab.page.getByTestId("approval-count")).toHaveText("1 of 2 approved — bob");
    for (const tab of bobTabs) {
      await expect(card(tab)).toHaveAttribute("data-mode", "voted");
      await expect(tab.page.getByTestId("approval-my-vote")).toHaveText("You approved · waiting for 1 more");
      await expect(tab.page.getByTestId("approval-allow-once")).toHaveCount(0);
      await expect(tab.page.getByTestId("question-error")).toHaveCount(0);
      await expect(tab.composer()).toHaveCount(0);
    }
    await expect(carolTab!.page.getByTestId("approval-my-vote")).toHaveCount(0);
    await expect(carolTab!.page.getByTestId("approval-allow-once")).toBeVisible();
    await expect(owner.page.getByTestId("question-waiting")).toHaveText("Waiting for carol or dave");
    const [waiting] = await api.pending(session.id);
    expect(waiting!.votes.map((v) => v.user)).toEqual(["bob"]);

    await carolTab!.page.getByTestId("approval-allow-once").click();

    // Each reader is "you" in the record.
    const approvedBy = new Map([
      [owner, "Approved by bob and carol"],
      [bobTabs[0]!, "Approved by you and carol"],
      [bobTabs[1]!, "Approved by you and carol"],
      [carolTab!, "Approved by bob and you"],
    ]);
    for (const [tab, words] of approvedBy) {
      await tab.expectNoCard();
      const record = tab.page.locator('[data-testid="question-record"][data-kind="approval"]');
      await expect(record).toHaveAttribute("data-status", "answered");
      await expect(record.getByTestId("question-record-votes")).toHaveText(words);
      await expect(tab.messages("agent").filter({ hasText: "Allowed." })).toBeVisible();
    }
  });

  test("an escalation: bob's question becomes carol's too after its wait, in her open tab (read-only before, answerable after); she answers and every tab retracts it", async ({
    browser,
    context,
    request,
    baseURL,
  }) => {
    const { api, session, owner, bobTab, carolTab } = await sharedWithBobAndCarol(browser, context, request, baseURL!);

    // The wait leaves time to see carol's card read-only first on a loaded machine (a 3 s wait once ran out before her tab was looked at).
    await api.startRun(session.id, "test.ask", { prompt: "Refund order 1182?", confirm: true, answerers: ["bob"], escalate: [{ after: "8s", to: ["carol"] }] });
    const [asked] = await api.waitForPending(session.id);
    await expect(card(carolTab!)).toHaveAttribute("data-readonly", "");
    await expect(carolTab!.page.getByTestId("question-waiting")).toHaveText("Waiting for bob");

    // Nobody answered in time: carol may answer too, without reloading.
    await expect(card(carolTab!)).not.toHaveAttribute("data-readonly", { timeout: 15_000 });
    await expect(card(bobTab!)).not.toHaveAttribute("data-readonly");
    await expect(card(owner)).toHaveAttribute("data-readonly", "");
    await expect(owner.page.getByTestId("question-waiting")).toHaveText("Waiting for bob or carol");
    expect((await api.pending(session.id)).map((q) => [q.id, q.escalated])).toEqual([[asked!.id, 1]]);

    await carolTab!.keysReady();
    await carolTab!.page.keyboard.press("1");
    for (const [tab, by] of [
      [owner, "by carol"],
      [bobTab!, "by carol"],
      [carolTab!, "by you"],
    ] as const) {
      await tab.expectNoCard();
      await expect(tab.page.locator('[data-testid="question-record"][data-status="answered"]').getByTestId("question-record-via")).toHaveText(`${by}, in a browser tab`);
    }
  });
});
