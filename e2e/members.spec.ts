import { expect, test } from "@playwright/test";
import type { Session } from "../lib/protocol/entities";
import { ChatPage } from "./chat-page";
import { contextOf, peopleOnServer } from "./people";

test.describe("a chat shared by two people", () => {
  test("alice shares it from the People panel, bob's list shows it at once, both see the card, bob answers and alice's card retracts; removed, bob's tab says so, and shows it again once it is shared again", async ({
    browser,
    baseURL,
    playwright,
  }) => {
    const [alice, bob] = await peopleOnServer(["alice", "bob"]);
    const [aliceContext, bobContext] = [await contextOf(browser, baseURL!, alice!), await contextOf(browser, baseURL!, bob!)];
    const aliceApi = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${alice!.token}` } });
    try {
      const created = await aliceApi.post("/api/sessions", { data: { title: "Team lunch" } });
      expect(created.status()).toBe(201);
      const session = (await created.json()) as Session;

      const bobHome = await bobContext.newPage();
      await bobHome.goto("/");
      await expect(bobHome.getByTestId("home")).toBeVisible();
      const bobsRow = bobHome.locator(`[data-testid="session-row"][data-session-id="${session.id}"]`);
      await expect(bobsRow).toHaveCount(0);

      const aliceTab = await ChatPage.open(aliceContext, session.id);
      await aliceTab.page.getByTestId("people-button").click();
      await expect(aliceTab.page.locator('[data-testid="person"][data-role="owner"]')).toContainText("alice");
      // Someone who is no person is said inline.
      await aliceTab.page.getByTestId("people-add-name").fill("nobody");
      await aliceTab.page.getByTestId("people-add-submit").click();
      await expect(aliceTab.page.getByTestId("people-add-error")).toContainText('No person named "nobody"');
      await aliceTab.page.getByTestId("people-add-name").fill("bob");
      await aliceTab.page.getByTestId("people-add-submit").click();
      await expect(aliceTab.page.locator('[data-testid="person"][data-user="bob"]')).toBeVisible();
      await expect(aliceTab.page.getByTestId("people-add-error")).toHaveCount(0);
      await expect(aliceTab.page.getByTestId("people-button")).toHaveAttribute("data-shared", "true");
      await aliceTab.page.getByTestId("people-close").click();

      // Bob's open page lists it at once, as alice's.
      await expect(bobsRow.getByTestId("session-whose")).toHaveText("alice’s");
      await bobsRow.getByTestId("session-link").click();
      const bobTab = new ChatPage(bobHome);
      await expect(bobTab.page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
      // Not his to rename.
      await expect(bobTab.page.getByTestId("session-title")).toHaveText("Team lunch");
      await expect(bobTab.page.getByTestId("session-title-edit")).toHaveCount(0);

      const run = await aliceApi.post(`/api/sessions/${session.id}/runs`, { data: { function: "test.ask", input: { prompt: "Pizza or sushi?", options: ["Pizza", "Sushi"] } } });
      expect(run.status()).toBe(201);
      await aliceTab.expectCard("Pizza or sushi?");
      await bobTab.expectCard("Pizza or sushi?");
      // Alice started the run and owns the chat: she may stop it; bob, a member who did not start it, sees no Stop.
      await expect(aliceTab.page.getByTestId("stop-run")).toBeVisible();
      await expect(bobTab.page.getByTestId("stop-run")).toHaveCount(0);
      await bobTab.option("Sushi").click();
      await bobTab.expectNoCard();
      await aliceTab.expectNoCard();
      await expect(aliceTab.page.locator('[data-testid="question-record"][data-status="answered"]')).toContainText("Sushi");

      // Alice removes him: his tab says so, and his list no longer has it.
      await aliceTab.page.getByTestId("people-button").click();
      await aliceTab.page.getByRole("button", { name: "Remove bob" }).click();
      await expect(aliceTab.page.locator('[data-testid="person"][data-user="bob"]')).toHaveCount(0);
      await expect(bobTab.page.getByTestId("session-left")).toContainText("no longer shared with you");
      await expect(bobTab.page.locator(`[data-testid="session-link"][data-session-id="${session.id}"]`)).toHaveCount(0);

      // Shared with him again, the same tab shows it again and gets its next card.
      await aliceTab.page.getByTestId("people-add-name").fill("bob");
      await aliceTab.page.getByTestId("people-add-submit").click();
      await expect(bobTab.page.getByTestId("session-left")).toHaveCount(0);
      await expect(bobTab.page.getByTestId("session-title")).toHaveText("Team lunch");
      const again = await aliceApi.post(`/api/sessions/${session.id}/runs`, { data: { function: "test.ask", input: { prompt: "Dessert too?", options: ["Yes", "No"] } } });
      expect(again.status()).toBe(201);
      await bobTab.expectCard("Dessert too?");
    } finally {
      await aliceApi.dispose();
      await aliceContext.close();
      await bobContext.close();
    }
  });
});
