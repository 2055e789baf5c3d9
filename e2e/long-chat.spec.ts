import { expect, test, type Page } from "@playwright/test";
import { Api, ChatPage } from "./chat-page";
import { seedLongChat, userText } from "../tests/helpers/long-chat";

const TURNS = 150;

/** A chat with a long history (300 messages, 30 answered questions) written straight into the server's database. */
async function longSession(api: Api) {
  const session = await api.createSession();
  const run = await api.startRun(session.id, "test.ask", { prompt: "Go ahead?", options: ["yes", "no"] });
  const [question] = await api.waitForPending(session.id);
  await api.reply(question!.id, "yes");
  await expect.poll(async () => (await api.run(run.id)).status).toBe("succeeded");
  seedLongChat(process.env.PARLEY_E2E_DB!, session.id, { turns: TURNS, questionEvery: 5 });
  return session;
}

/** Where a message stands in the transcript's view (px from its top). */
const topOf = (page: Page, text: string) =>
  page.evaluate((text) => {
    const scroller = document.querySelector('[data-testid="transcript"]')!;
    const el = [...scroller.querySelectorAll('[data-testid="message"]')].find((m) => m.textContent?.includes(text));
    return el ? el.getBoundingClientRect().top - scroller.getBoundingClientRect().top : null;
  }, text);

/**
 * Waits until a frame has been painted: a page of history above the view is laid out at estimated sizes
 * until the next frame renders the items near the view (content-visibility), and the transcript puts the
 * message read back in place then, before that frame is painted. What the reader sees is the painted frame.
 */
const painted = (page: Page) => page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));

const scrollTranscript = (page: Page, to: "top" | "bottom") =>
  page.getByTestId("transcript").evaluate((el, to) => {
    el.scrollTop = to === "top" ? 0 : el.scrollHeight;
  }, to);

test.describe("a long chat", () => {
  test("opens at its end, loads older messages as the reader scrolls up without moving what they read, and live events still arrive", async ({ context, request }) => {
    const api = new Api(request);
    const session = await longSession(api);
    const tab = await ChatPage.open(context, session.id);
    const { page } = tab;

    // The end is in view; only the newest page is here.
    await expect(tab.messages("agent").last()).toContainText('You answered: "yes"');
    await expect(tab.messages("agent").last()).toBeInViewport();
    const firstCount = await tab.messages().count();
    expect(firstCount).toBeLessThanOrEqual(100);
    await expect(tab.messages().filter({ hasText: userText(0) })).toHaveCount(0);
    await page.screenshot({ path: "test-results/long-chat-end.png" });

    // Up to the top: the next page arrives above (held back until what is read there is noted), and the message read stays where it was.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/history?*", async (route) => {
      await held;
      await route.continue();
    });
    await scrollTranscript(page, "top");
    await expect(page.getByTestId("older-history")).toHaveText("Loading earlier messages…");
    const reading = (await tab.messages("user").first().textContent())!.match(/Question number \d+:/)![0];
    const before = (await topOf(page, reading))!;
    expect(await tab.messages().count()).toBe(firstCount);
    release();
    await expect.poll(() => tab.messages().count()).toBeGreaterThan(firstCount);
    await painted(page);
    expect(Math.abs((await topOf(page, reading))! - before)).toBeLessThanOrEqual(2);
    expect(await page.getByTestId("transcript").evaluate((el) => el.scrollTop)).toBeGreaterThan(0);

    // On to the beginning, page after page.
    await expect(async () => {
      await scrollTranscript(page, "top");
      await expect(tab.messages().filter({ hasText: userText(0) })).toHaveCount(1, { timeout: 1_000 });
    }).toPass();
    await expect(page.getByTestId("older-history")).toHaveCount(0);
    expect(await tab.messages().count()).toBe(TURNS * 2 + 1);
    await expect(page.getByTestId("question-record")).toHaveCount(TURNS / 5 + 1);

    // Live events with every page loaded: a question's card, its answer's record, a message and its reply.
    await scrollTranscript(page, "bottom");
    await api.startRun(session.id, "test.ask", { prompt: "One more?", options: ["sure", "no"] });
    await tab.expectCard("One more?");
    await tab.keysReady();
    await tab.option("sure").click();
    await expect(page.getByTestId("question-record").last()).toContainText("One more?");
    await tab.send("hello at the end");
    await expect(tab.messages("user").last()).toContainText("hello at the end");
    await expect(tab.messages("user").last()).toBeInViewport();

    // A reload shows the newest page again.
    await page.reload();
    await expect(tab.messages("user").last()).toContainText("hello at the end");
    await expect(tab.messages().filter({ hasText: userText(0) })).toHaveCount(0);
  });

  test("on a phone, opens at its end and pages back", async ({ browser, context, request }) => {
    const api = new Api(request);
    const session = await longSession(api);
    const phoneContext = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState: await context.storageState() });
    const tab = await ChatPage.open(phoneContext, session.id);
    await expect(tab.messages("agent").last()).toBeInViewport();
    await tab.page.screenshot({ path: "test-results/long-chat-phone-end.png" });
    const count = await tab.messages().count();
    await scrollTranscript(tab.page, "top");
    await expect.poll(() => tab.messages().count()).toBeGreaterThan(count);
    await tab.page.screenshot({ path: "test-results/long-chat-phone-older.png" });
    await phoneContext.close();
  });
});
