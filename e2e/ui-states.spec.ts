import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { hoveredContrastViolations, seriousViolations } from "./axe";
import { Api } from "./chat-page";
import { phoneProblems } from "./phone-fit";
import { CARD_STATES, DESKTOP, PAGE_STATES, PHONE, openState, type UiState } from "./ui-states";

/**
 * Issue 27, item 6, over every state of the UI (e2e/ui-states.ts), each made once on the server
 * and opened on a desktop and on a 360 px touch phone: axe finds nothing serious or critical on
 * either (on the desktop also with the pointer resting on each row: a hover fill keeps every text
 * and key hint at 4.5:1), and the phone shows it usable — no sideways scroll of the page (wide
 * content scrolls in a box of its own), every target at least 44×44 px, no hint for keys a phone
 * does not have, a chat's title never cut to a letter or two.
 */

const SCREENS = { desktop: DESKTOP, phone: PHONE } as const;

/** One tab per screen, kept for all the tests of the file (a context per test costs more than the checks). */
let tabs: Record<keyof typeof SCREENS, Page>;
test.beforeAll(async ({ browser }) => {
  // The project's options (base URL, the signed-in state) apply to these contexts too.
  const open = async (screen: keyof typeof SCREENS) => (await browser.newContext(SCREENS[screen])).newPage();
  tabs = { desktop: await open("desktop"), phone: await open("phone") };
});
test.afterAll(async () => {
  for (const page of Object.values(tabs)) await page.context().close();
});

/** The state made once on the server, then looked at on both screens; every finding reported at once. `axeWithin` narrows axe to a part of the page. */
async function expectFine(request: APIRequestContext, state: UiState, axeWithin?: string) {
  const path = await state.prepare(new Api(request), request);
  const found: string[] = [];
  for (const [screen, page] of Object.entries(tabs)) {
    await page.goto(path);
    await state.reach(page);
    for (const line of await seriousViolations(page, { within: axeWithin })) found.push(`${screen}, axe: ${line}`);
    // A mouse rests on rows; a touch screen has no hover (and hides its key hints).
    if (page === tabs.desktop) for (const line of await hoveredContrastViolations(page)) found.push(`${screen}, axe: ${line}`);
    if (page === tabs.phone) for (const problem of await phoneProblems(page)) found.push(`phone at 360 px: ${problem}`);
  }
  await state.cleanup?.(request);
  expect(found, `${state.name}:\n${found.join("\n")}`).toEqual([]);
}

test("the phone is a touch screen: hints hide by the pointer, not by the width", async () => {
  expect(await tabs.phone.evaluate(() => matchMedia("(pointer: coarse)").matches)).toBe(true);
});

test.describe("every card kind, desktop and phone", () => {
  // The chat around a card is the same for every kind: axe checks the whole page with two cards waiting, the other states' cards on their own.
  for (const state of CARD_STATES) {
    test(state.name, async ({ request }) => {
      await expectFine(request, state, state.name === "two questions waiting" ? undefined : '[data-testid="question-card"]');
    });
  }
});

test.describe("every page, desktop and phone", () => {
  for (const state of PAGE_STATES) {
    test(state.name, async ({ request }) => {
      await expectFine(request, state);
    });
  }

  test("sign-in, after a wrong link", async ({ browser }) => {
    const found: string[] = [];
    for (const [screen, options] of Object.entries(SCREENS)) {
      // Signed out: a context here starts from the project's signed-in state unless told otherwise.
      const context = await browser.newContext({ ...options, storageState: { cookies: [], origins: [] } });
      const page = await context.newPage();
      await page.goto("/sign-in?error=invalid_token");
      await expect(page.locator("#token-error")).toBeVisible();
      for (const line of await seriousViolations(page)) found.push(`${screen}, axe: ${line}`);
      if (screen === "phone") {
        await page.getByLabel("Server token").fill("a token");
        for (const problem of await phoneProblems(page)) found.push(`phone at 360 px: ${problem}`);
      }
      await context.close();
    }
    expect(found, found.join("\n")).toEqual([]);
  });
});

test.describe("a desktop with a keyboard", () => {
  test.use(DESKTOP);

  test("a hovered answer keeps its key hint readable: an option, a primary answer, a reject", async ({ page, request }) => {
    await openState(
      page,
      request,
      CARD_STATES.find((s) => s.name === "single choice with Other")!,
    );
    const option = page.getByTestId("question-option").first();
    await option.hover();
    await expect(option.locator("kbd")).toBeVisible();
    expect(await hoveredContrastViolations(page, { rows: '[data-testid="question-option"]' })).toEqual([]);

    const approval = CARD_STATES.find((s) => s.name === "approval with a command")!;
    await openState(page, request, approval);
    expect(
      await hoveredContrastViolations(page, { rows: '[data-testid="approval-allow-once"], [data-testid="approval-allow-always"], [data-testid="approval-edit"], [data-testid="approval-reject"]' }),
    ).toEqual([]);
  });

  test("keeps its key hints", async ({ page, request }) => {
    await openState(
      page,
      request,
      CARD_STATES.find((s) => s.name === "single choice with Other")!,
    );
    await expect(page.getByTestId("question-key-hint")).toHaveText("Press a number to choose");
    await expect(page.getByTestId("question-option").first().locator("kbd")).toBeVisible();
    await expect(page.getByTestId("question-decline").locator("kbd")).toHaveText("Esc");
  });
});
