import { expect, test, type Page } from "@playwright/test";
import { draftKey } from "../lib/client/drafts";
import { MAX_MESSAGE_CHARS } from "../lib/protocol/rest";
import { seriousViolations } from "./axe";
import { Api, ChatPage } from "./chat-page";

/** The basics around the card (issue 11): drafts, the transcript, attention, the phone layout, accessibility. */

const shot = (page: Page, name: string) => page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: false });

test.describe("the chat around the card", () => {
  test("a draft survives a card from another tab, and a reload, and stays with its own chat", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const other = await api.createSession();
    const [typing, answering] = await Promise.all([ChatPage.open(context, session.id), ChatPage.open(context, session.id)]);

    await typing.page.getByTestId("composer-input").fill("half a thought about lunch");
    await api.startRun(session.id, "test.ask", { prompt: "Pick a colour", options: ["red", "blue"] });
    await typing.expectCard("Pick a colour");
    await answering.option("blue").click();
    await typing.expectNoCard();
    await expect(typing.page.getByTestId("composer-input")).toHaveValue("half a thought about lunch");

    await typing.page.reload();
    await expect(typing.page.getByTestId("composer-input")).toHaveValue("half a thought about lunch");
    // Another chat in the same tab has its own (empty) draft; coming back finds this one.
    await typing.goto(other.id);
    await expect(typing.page.getByTestId("composer-input")).toHaveValue("");
    await typing.goto(session.id);
    await expect(typing.page.getByTestId("composer-input")).toHaveValue("half a thought about lunch");
    // The other tab had no draft: drafts are per tab.
    await expect(answering.page.getByTestId("composer-input")).toHaveValue("");

    // Sent, it is gone, even when the page is left before the send's answer came back (the message shows first).
    // The answer is held back until the page was left, however long that takes.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    await typing.page.route("**/api/sessions/*/messages", async (route) => {
      const response = await route.fetch();
      await held;
      await route.fulfill({ response }).catch(() => {});
    });
    await typing.page.getByTestId("composer-send").click();
    await expect(typing.messages("user").filter({ hasText: "half a thought about lunch" })).toBeVisible();
    // The send's answer is still held back: the draft left with the message all the same.
    expect(await typing.page.evaluate((key) => sessionStorage.getItem(key), draftKey(session.id))).toBeNull();
    await typing.page.reload();
    await expect(typing.page.getByTestId("composer-input")).toHaveValue("");
    answer();
    await typing.page.unroute("**/api/sessions/*/messages");
  });

  test("a refused message comes back to the input with the reason", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    const tooLong = "x".repeat(MAX_MESSAGE_CHARS + 1);
    await tab.page.getByTestId("composer-input").fill(tooLong);
    await tab.page.getByTestId("composer-send").click();
    await expect(tab.page.getByTestId("composer-error")).toContainText("20000");
    await expect(tab.page.getByTestId("composer-input")).toHaveValue(tooLong);
    await tab.page.reload();
    await expect(tab.page.getByTestId("composer-input")).toHaveValue(tooLong);
  });

  test("agent text renders as Markdown and never as HTML", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    await api.startRun(session.id, "test.ask", { prompt: "Say something" });
    await tab.expectCard("Say something");
    const evil = `**bold** <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> <a href="javascript:window.__pwned=3">link</a>`;
    await tab.page.getByTestId("question-text-input").fill(evil);
    await tab.page.getByTestId("question-submit").click();
    const reply = tab.messages("agent").filter({ hasText: "You answered" });
    await expect(reply.locator("strong")).toHaveText("bold");
    await expect(reply.locator("img, script")).toHaveCount(0);
    await expect(reply.locator('a[href^="javascript"]')).toHaveCount(0);
    expect(await tab.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  test("the transcript: times and a day separator, a copy button, run lines with progress, 'Stopped by you', and Jump to latest", async ({ context, request }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    const page = tab.page;

    // A new chat offers suggestions; one click sends it.
    await expect(page.getByTestId("suggestion")).toHaveCount(5);
    await page.getByTestId("suggestion").filter({ hasText: "Deploy the demo app" }).click();
    await tab.expectCard("Which environment should I deploy to?");
    await expect(page.getByTestId("day-separator")).toHaveText("Today");
    await expect(page.getByTestId("run-line").first()).toContainText("waiting for your answer");
    await tab.option("staging").click();
    await expect(page.getByTestId("run-line").filter({ hasText: "is working" }).first()).toBeVisible();
    await expect(tab.messages("agent").filter({ hasText: "Deployed to staging" })).toBeVisible();

    const agent = tab.messages("agent").filter({ hasText: "Deployed to staging" });
    await agent.hover();
    await expect(agent.getByTestId("message-time")).toBeVisible();
    await agent.getByTestId("copy-message").click();
    await expect(agent.getByTestId("copy-message")).toHaveAccessibleName("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain("Deployed to staging");

    // Stopping a run says who stopped it.
    await tab.send("/countdown");
    await tab.expectCard("Type the launch code within 20 seconds.");
    await page.getByTestId("stop-run").click();
    await expect(tab.messages("system").filter({ hasText: "Stopped by you." })).toBeVisible();

    // Scrolled up, a button brings the latest back.
    for (let i = 0; i < 6; i++) await tab.send(`/help ${i}`);
    await expect(tab.messages("agent").filter({ hasText: "Answer in the card that replaces the input" })).toHaveCount(6);
    await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", "succeeded");
    await page.getByTestId("transcript").evaluate((el) => el.scrollTo({ top: 0 }));
    await expect(page.getByTestId("jump-to-latest")).toBeVisible();
    await page.getByTestId("jump-to-latest").click();
    await expect(page.getByTestId("jump-to-latest")).toBeHidden();

    // Scrolled up, a message of one's own brings the view to the end; there, a card that grows below
    // (a form, then its errors) leaves the latest in view.
    await page.getByTestId("transcript").evaluate((el) => el.scrollTo({ top: 0 }));
    await expect(page.getByTestId("jump-to-latest")).toBeVisible();
    const atBottom = () => page.getByTestId("transcript").evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 2);
    await tab.send("/trip");
    await tab.expectCard("Book a trip");
    await expect.poll(atBottom).toBe(true);
    await page.getByTestId("question-submit").click();
    await expect(page.getByTestId("form-field-error").first()).toBeVisible();
    await expect.poll(atBottom).toBe(true);
    await shot(page, "transcript");
  });

  test("a question that arrives while the tab is hidden shows one desktop notification; its click focuses the card", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    // The page cannot be hidden in a headless run, nor can a real notification be seen: both are stood in for.
    await context.addInitScript(() => {
      const w = window as unknown as { __hidden: boolean; __notes: Array<{ title: string; body: string; tag: string; click: () => void }> };
      w.__hidden = false;
      w.__notes = [];
      Object.defineProperty(document, "visibilityState", { get: () => (w.__hidden ? "hidden" : "visible") });
      class FakeNotification {
        static permission = "granted";
        static requestPermission = async () => "granted";
        onclick: (() => void) | null = null;
        constructor(title: string, options: { body: string; tag: string }) {
          w.__notes.push({ title, body: options.body, tag: options.tag, click: () => this.onclick?.() });
        }
        close() {}
      }
      (window as unknown as { Notification: unknown }).Notification = FakeNotification;
    });
    const tab = await ChatPage.open(context, session.id);
    const page = tab.page;
    await expect(page.getByTestId("notify-button")).toHaveAttribute("data-subscribed", "false");

    // Seen while visible: no notification, then or later.
    await api.startRun(session.id, "test.ask", { prompt: "Seen already?", options: ["yes", "no"] });
    await tab.expectCard("Seen already?");
    await page.evaluate(() => ((window as unknown as { __hidden: boolean }).__hidden = true));
    await api.startRun(session.id, "test.ask", { prompt: "While you were away?", options: ["yes", "no"] });
    await expect.poll(() => page.evaluate(() => (window as unknown as { __notes: unknown[] }).__notes.length)).toBe(1);
    const note = await page.evaluate(() => {
      const n = (window as unknown as { __notes: Array<{ title: string; body: string; tag: string }> }).__notes[0]!;
      return { title: n.title, body: n.body, tag: n.tag };
    });
    expect(note).toMatchObject({ title: "Test ask asks", body: expect.stringContaining("While you were away?") });
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => (window as unknown as { __notes: unknown[] }).__notes.length)).toBe(1);

    await page.evaluate(() => ((window as unknown as { __hidden: boolean }).__hidden = false));
    await page.evaluate(() => (window as unknown as { __notes: Array<{ click: () => void }> }).__notes[0]!.click());
    await expect(tab.card()).toContainText(/Seen already\?|While you were away\?/);
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest('[data-testid="question-card"]')))).toBe(true);
  });

  test("on a phone: the header does not overlap, nothing scrolls sideways, the card fits", async ({ browser, context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState: await context.storageState() });
    const tab = await ChatPage.open(phone, session.id);
    const page = tab.page;
    await tab.send("/deploy");
    await tab.expectCard("Which environment should I deploy to?");

    const header = page.locator("header").first();
    const boxes = await header.locator(":scope > *").evaluateAll((els) =>
      els
        .map((el) => el.getBoundingClientRect())
        .filter((r) => r.width > 0 && r.height > 0)
        .map((r) => ({ left: r.left, right: r.right })),
    );
    for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.left).toBeGreaterThanOrEqual(boxes[i - 1]!.right - 0.5);
    expect(boxes.at(-1)!.right).toBeLessThanOrEqual(390);
    await expect(page.getByTestId("run-status")).toHaveAccessibleName(/Waiting for you|Working/);

    // Beside a Stop and four buttons the title still reads: whole when short, on two lines (then cut) when long, never a letter or two.
    const title = page.getByTestId("session-title");
    const shape = () =>
      title.evaluate((el) => ({
        width: el.getBoundingClientRect().width,
        lines: Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)),
        cut: el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1,
      }));
    await expect(title).toHaveText("Deploy");
    expect(await shape()).toMatchObject({ cut: false });
    expect((await request.patch(`/api/sessions/${session.id}`, { data: { title: "Plan the team offsite in Lisbon for early June" } })).status()).toBe(200);
    await expect(title).toHaveText("Plan the team offsite in Lisbon for early June");
    const long = await shape();
    expect(long.width).toBeGreaterThanOrEqual(64);
    expect(long.lines).toBe(2);
    await expect(page.getByTestId("stop-run")).toHaveAccessibleName("Stop");
    const stop = await page.getByTestId("stop-run").boundingBox();
    expect(stop!.width).toBeGreaterThanOrEqual(44);

    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    const card = await tab.card().boundingBox();
    expect(card!.x).toBeGreaterThanOrEqual(0);
    expect(card!.x + card!.width).toBeLessThanOrEqual(390);
    await shot(page, "mobile-chat-card");
    await tab.option("staging").click();
    await tab.expectNoCard();
    await shot(page, "mobile-chat");
    await phone.close();
  });

  test("axe finds no serious or critical violations on the chat page with a card open", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    await tab.send("/coffee");
    await tab.expectCard("What would you like to drink?");
    // The card is announced and takes the focus; when it goes, the focus returns to the input.
    await expect(tab.page.getByRole("region", { name: /What would you like to drink\?/ })).toBeVisible();
    await expect.poll(() => tab.page.evaluate(() => Boolean(document.activeElement?.closest('[data-testid="question-card"]')))).toBe(true);
    expect(await seriousViolations(tab.page, { rules: "all" })).toEqual([]);
    await tab.option("Espresso").click();
    await tab.expectNoCard();
    await expect(tab.page.getByTestId("composer-input")).toBeFocused();
  });

  test("a person who asks for less motion sees nothing pulse while a question waits; others see the status dot pulse", async ({ browser, context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    await api.startRun(session.id, "test.ask", { prompt: "Pick a colour", options: ["red", "blue"] });
    const endless = (page: Page) => page.evaluate(() => document.getAnimations().filter((a) => a.effect?.getComputedTiming().iterations === Infinity).length);
    const moving = await ChatPage.open(context, session.id);
    await moving.expectCard("Pick a colour");
    expect(await endless(moving.page)).toBeGreaterThan(0);
    // A pulse that never ends is motion a person cannot stop (WCAG 2.2.2); it also kept a core's compositor busy in every open tab.
    const still = await browser.newContext({ reducedMotion: "reduce" });
    try {
      const tab = await ChatPage.open(still, session.id);
      await tab.expectCard("Pick a colour");
      await expect(tab.page.getByTestId("run-status")).toBeVisible();
      expect(await endless(tab.page)).toBe(0);
    } finally {
      await still.close();
    }
  });

  test("a message from a text channel names its sender; the app user's own names no one", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const res = await request.post("/api/channels/text", { data: { sessionId: session.id, from: "Ann (SMS)", text: "hello from my phone" } });
    expect(res.ok()).toBe(true);
    const tab = await ChatPage.open(context, session.id);
    const fromAnn = tab.messages("user").filter({ hasText: "hello from my phone" });
    await expect(fromAnn.getByTestId("message-sender")).toHaveText("Ann (SMS) via text channel");
    await expect(tab.messages("agent")).toHaveCount(1);
    await tab.send("and hello from the app");
    await expect(tab.messages("user").filter({ hasText: "and hello from the app" }).getByTestId("message-sender")).toHaveCount(0);
  });
});
