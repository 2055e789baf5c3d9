import Database from "better-sqlite3";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import type { Session } from "../lib/protocol/entities";
import { Api, ChatPage } from "./chat-page";

/** Chats as a person manages them: rename (sidebar and header), delete with a pending question, the phone's drawer. */

const row = (page: Page, id: string) => page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
const sidebar = (page: Page) => page.locator("aside");

async function rename(request: APIRequestContext, id: string, title: string): Promise<Session> {
  const res = await request.patch(`/api/sessions/${id}`, { data: { title } });
  expect(res.status()).toBe(200);
  return res.json();
}

/** Moves a chat's last activity into the past (in the server's database), so the list shows other relative times. */
function backdate(id: string, msAgo: number) {
  const db = new Database(process.env.PARLEY_E2E_DB, { timeout: 5_000 });
  try {
    const at = new Date(Date.now() - msAgo).toISOString().replace("Z", "+00:00");
    db.prepare(`UPDATE ChatSession SET updatedAt = ? WHERE id = ?`).run(at, id);
  } finally {
    db.close();
  }
}

test.describe("renaming a chat", () => {
  test("in the sidebar and in the header; the other tab follows; Esc cancels and an empty title is refused", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const [one, two] = [await ChatPage.open(context, session.id), await ChatPage.open(context, session.id)];

    // Sidebar: the chat's options menu → Rename → type → Enter.
    await row(one.page, session.id).hover();
    await row(one.page, session.id).getByTestId("session-menu-button").click();
    await expect(one.page.getByRole("menu")).toBeVisible();
    await one.page.getByRole("menuitem", { name: "Rename" }).click();
    const input = one.page.getByTestId("session-rename-input");
    await expect(input).toBeFocused();
    await input.fill("Weekend trip");
    await input.press("Enter");
    await expect(row(one.page, session.id).getByTestId("session-link-title")).toHaveText("Weekend trip");
    await expect(one.page.getByTestId("session-title")).toHaveText("Weekend trip");
    await expect(two.page.getByTestId("session-title")).toHaveText("Weekend trip");
    await expect(row(two.page, session.id).getByTestId("session-link-title")).toHaveText("Weekend trip");
    // Focus goes back to the chat's link.
    await expect(row(one.page, session.id).getByTestId("session-link")).toBeFocused();

    // Esc cancels (double-click starts a rename too).
    await row(one.page, session.id).getByTestId("session-link").dblclick();
    await one.page.getByTestId("session-rename-input").fill("Something else");
    await one.page.getByTestId("session-rename-input").press("Escape");
    await expect(one.page.getByTestId("session-rename-input")).toHaveCount(0);
    await expect(row(one.page, session.id).getByTestId("session-link-title")).toHaveText("Weekend trip");

    // The header: the pencil edits the title in place; an empty title says why and stays open.
    await two.page.getByTestId("session-title-edit").click();
    const header = two.page.getByTestId("header-title-input");
    await expect(header).toBeFocused();
    await header.fill("   ");
    await header.press("Enter");
    await expect(two.page.getByTestId("header-title-input-error")).toContainText("needs some text");
    await header.fill("Lisbon, 3 days");
    await header.press("Enter");
    await expect(two.page.getByTestId("session-title")).toHaveText("Lisbon, 3 days");
    await expect(two.page.getByTestId("session-title-edit")).toBeFocused();
    await expect(one.page.getByTestId("session-title")).toHaveText("Lisbon, 3 days");
    await expect(row(one.page, session.id).getByTestId("session-link-title")).toHaveText("Lisbon, 3 days");
    await expect(one.page).toHaveTitle(/Lisbon, 3 days/);

    // A person's title stays when the first message is sent.
    await one.send("hello");
    await expect(one.messages("agent").first()).toBeVisible();
    await expect(one.page.getByTestId("session-title")).toHaveText("Lisbon, 3 days");
  });

  test("a slash command titles a new chat after its function; the sidebar shows relative times", async ({ page, request }) => {
    const api = new Api(request);
    const old = await api.createSession();
    await rename(request, old.id, "Quarterly report");
    backdate(old.id, 26 * 3_600_000 + 60_000);
    const older = await api.createSession();
    await rename(request, older.id, "Birthday ideas");
    backdate(older.id, 4 * 24 * 3_600_000);
    const recent = await api.createSession();
    await rename(request, recent.id, "Fix the flaky test");
    backdate(recent.id, 5 * 60_000 + 5_000);
    const session = await api.createSession();

    const tab = new ChatPage(page);
    await tab.goto(session.id);
    await tab.send("/coffee");
    await expect(tab.card()).toBeVisible();
    await expect(tab.page.getByTestId("session-title")).toHaveText("Order coffee");
    await expect(row(page, session.id).getByTestId("session-link-title")).toHaveText("Order coffee");

    await expect(row(page, session.id).getByTestId("session-time")).toHaveText("just now");
    await expect(row(page, recent.id).getByTestId("session-time")).toHaveText("5 minutes ago");
    await expect(row(page, old.id).getByTestId("session-time")).toHaveText(/yesterday|2 days ago/);
    await expect(row(page, older.id).getByTestId("session-time")).toHaveText("4 days ago");
    // The exact time is in the tooltip, written as every other time is (lib/client/timestamps.ts).
    await expect(row(page, recent.id).getByTestId("session-time")).toHaveAttribute("title", /^\w+day, \w+ \d{1,2}, \d{4} at \d{1,2}:\d{2}\s?[AP]M$/);
    await page.screenshot({ path: test.info().outputPath("sidebar.png") });
  });
});

test.describe("deleting a chat", () => {
  test("with a question pending in two tabs: the dialog confirms, the cards retract in both, both leave the chat", async ({ context, request }) => {
    const api = new Api(request);
    const keep = await api.createSession();
    const session = await api.createSession();
    await rename(request, session.id, "Coffee order");
    const run = await api.startRun(session.id, "test.ask", { prompt: "Which size?", options: ["Small", "Large"] });
    const [one, two] = [await ChatPage.open(context, session.id), await ChatPage.open(context, session.id)];
    for (const tab of [one, two]) await tab.expectCard("Which size?");

    // The confirmation: an alertdialog, labelled, focus on Cancel; Esc cancels and gives focus back.
    const menuButton = row(one.page, session.id).getByTestId("session-menu-button");
    await menuButton.click();
    await one.page.getByRole("menuitem", { name: "Delete…" }).click();
    const dialog = one.page.getByRole("alertdialog", { name: "Delete “Coffee order”?" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("still waiting for an answer");
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await one.page.screenshot({ path: test.info().outputPath("delete-dialog.png") });
    await one.page.keyboard.press("Tab");
    await expect(dialog.getByRole("button", { name: "Delete chat" })).toBeFocused();
    await one.page.keyboard.press("Tab");
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await one.page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await expect(menuButton).toBeFocused();
    await one.expectCard("Which size?");

    await menuButton.click();
    await one.page.getByRole("menuitem", { name: "Delete…" }).click();
    await one.page.getByRole("alertdialog").getByRole("button", { name: "Delete chat" }).click();

    // The deleting tab goes back to the chat list; the other says the chat was deleted and offers the way back.
    await expect(one.page).toHaveURL(/\/$/);
    await expect(one.page.getByTestId("home")).toBeVisible();
    await expect(two.card()).toHaveCount(0);
    await expect(two.page.getByTestId("session-deleted")).toContainText("This chat was deleted.");
    await expect(two.page.getByRole("link", { name: "Back to all chats" })).toBeVisible();
    await two.page.screenshot({ path: test.info().outputPath("deleted-elsewhere.png") });
    for (const tab of [one, two]) {
      await expect(tab.page.locator(`[data-testid="session-link"][data-session-id="${session.id}"]`)).toHaveCount(0);
      await expect(tab.page.locator(`[data-testid="session-link"][data-session-id="${keep.id}"]`)).toBeVisible();
    }
    expect((await request.get(`/api/sessions/${session.id}`)).status()).toBe(404);
    expect((await request.get(`/api/runs/${run.id}`)).status()).toBe(404);
    await two.page.getByRole("link", { name: "Back to all chats" }).click();
    await expect(two.page).toHaveURL(/\/$/);
    // The home page's list has the same times and menus.
    await expect(one.page.locator(`[data-testid="session-row"][data-session-id="${keep.id}"] [data-testid="session-time"]`)).toHaveText("just now");
    await one.page.screenshot({ path: test.info().outputPath("home.png"), fullPage: true });
  });
});

test.describe("on a phone (390×844)", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("the chat list opens as a drawer over the chat: it lists chats, Esc and the backdrop close it, choosing a chat closes it", async ({ page, request }) => {
    const api = new Api(request);
    const other = await rename(request, (await api.createSession()).id, "Plan the offsite");
    const session = await rename(request, (await api.createSession()).id, "Groceries for the week");
    const tab = new ChatPage(page);
    await tab.goto(session.id);
    await expect(sidebar(page)).toBeHidden();
    const open = page.getByTestId("drawer-open");
    await expect(open).toBeVisible();
    await expect(page.getByTestId("session-title")).toHaveText("Groceries for the week");
    await page.screenshot({ path: test.info().outputPath("phone-chat.png") });

    await open.click();
    const drawer = page.getByRole("dialog", { name: "Chats" });
    await expect(drawer).toBeVisible();
    await expect(open).toHaveAttribute("aria-expanded", "true");
    await expect(drawer.locator(`[data-testid="session-link"][data-session-id="${session.id}"]`)).toBeFocused();
    await expect(drawer.locator(`[data-testid="session-link"][data-session-id="${other.id}"]`)).toBeVisible();
    await expect(drawer.getByTestId("session-time").first()).toHaveText("just now");
    // Over the chat, not beside it: the drawer is narrower than the screen and the chat keeps its width.
    const box = (await drawer.boundingBox())!;
    expect(box.x).toBe(0);
    expect(box.width).toBeLessThan(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: test.info().outputPath("drawer.png") });

    await page.keyboard.press("Escape");
    await expect(drawer).toHaveCount(0);
    await expect(open).toBeFocused();

    await open.click();
    await expect(drawer).toBeVisible();
    await page.getByTestId("drawer-backdrop").click({ position: { x: 370, y: 400 } });
    await expect(drawer).toHaveCount(0);

    await open.click();
    await drawer.locator(`[data-testid="session-link"][data-session-id="${other.id}"]`).click();
    await expect(page).toHaveURL(new RegExp(`/s/${other.id}$`));
    await expect(drawer).toHaveCount(0);
    await expect(page.getByTestId("session-title")).toHaveText("Plan the offsite");
  });
});
