import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { CARD_STATES, PAGE_STATES, PHONE, openState, type UiState } from "./ui-states";

/**
 * Issue 27, item 6: on a 360 px touch screen every state is usable — no sideways scroll of the
 * page (wide content scrolls in a box of its own), every target at least 44×44 px, and no hint
 * for keys a phone does not have.
 */

test.use(PHONE);

const MIN_TARGET = 44;

/** What is wrong with the page as a phone shows it: one line per problem, empty when none. */
function phoneProblems(page: Page): Promise<string[]> {
  return page.evaluate(async (min) => {
    // A drawer sliding in is measured at fractions of a pixel: measure what rests.
    const ending = document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Infinity);
    await Promise.all(ending.map((a) => a.finished.catch(() => undefined)));
    const problems: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > window.innerWidth) problems.push(`the page scrolls sideways: ${root.scrollWidth}px wide in ${window.innerWidth}px`);

    const shown = (el: Element) => el.checkVisibility({ visibilityProperty: true }) && el.getClientRects().length > 0;
    const name = (el: Element) => {
      const text = (el.getAttribute("aria-label") ?? (el as HTMLElement).innerText ?? "").replace(/\s+/g, " ").trim().slice(0, 40);
      const id = el.getAttribute("data-testid");
      return `<${el.tagName.toLowerCase()}${id ? ` ${id}` : ""}> "${text}"`;
    };

    // A box may scroll sideways only when it is one of its own: focusable, so keys scroll it too.
    for (const el of document.querySelectorAll<HTMLElement>("body *")) {
      if (!shown(el) || el.scrollWidth <= el.clientWidth + 1) continue;
      const overflow = getComputedStyle(el).overflowX;
      if ((overflow === "auto" || overflow === "scroll") && el.tabIndex < 0) problems.push(`${name(el)} scrolls sideways (${el.scrollWidth}px in ${el.clientWidth}px)`);
    }

    const targets = document.querySelectorAll('button, a[href], select, summary, [role="button"], input[type="checkbox"], input[type="radio"]');
    for (const el of targets) {
      // A box or a radio is touched through its label.
      const box = el instanceof HTMLInputElement ? (el.closest("label") ?? el.labels?.[0] ?? el) : el;
      if (!shown(box)) continue;
      const { width, height } = box.getBoundingClientRect();
      if (width < min || height < min) problems.push(`${name(box)} is ${Math.round(width)}×${Math.round(height)}`);
    }

    const HINT = /\b(Esc|Press (a|1|\d)|Enter to|Enter sends|Shift\+Enter|Number keys|Ctrl\+|Cmd\+)|⌘/;
    const text = document.body.innerText;
    const hint = HINT.exec(text);
    if (hint) problems.push(`a key hint shows: "${text.slice(Math.max(0, hint.index - 20), hint.index + 30).replace(/\s+/g, " ")}"`);
    for (const el of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("input[placeholder], textarea[placeholder]")) {
      if (shown(el) && HINT.test(el.placeholder)) problems.push(`${name(el)} has a key hint in its placeholder: "${el.placeholder}"`);
    }
    for (const el of document.querySelectorAll("kbd")) if (shown(el)) problems.push(`a key cap shows: ${name(el)}`);
    return problems;
  }, MIN_TARGET);
}

/** Opens each state in turn and reports every problem of every state at once. */
async function expectUsableOnPhone(page: Page, request: APIRequestContext, states: UiState[]) {
  const found: string[] = [];
  for (const state of states) {
    await test.step(state.name, async () => {
      await openState(page, request, state);
      for (const problem of await phoneProblems(page)) found.push(`${state.name}: ${problem}`);
      await state.cleanup?.(request);
    });
  }
  expect(found, `at 360 px:\n${found.join("\n")}`).toEqual([]);
}

test.describe("a phone, signed in", () => {
  test("every card kind fits 360 px, with 44 px targets and no key hints", async ({ page, request }) => {
    // The touch screen is what the page sees: the hints hide by the pointer, not by the width.
    expect(await page.evaluate(() => matchMedia("(pointer: coarse)").matches)).toBe(true);
    await expectUsableOnPhone(page, request, CARD_STATES);
  });

  test("the pages, the records, the sheet, the list and the dialog fit 360 px, with 44 px targets", async ({ page, request }) => {
    await expectUsableOnPhone(page, request, PAGE_STATES);
  });
});

test.describe("a phone, signed out", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test("the sign-in page fits 360 px, with 44 px targets", async ({ page, request }) => {
    const signIn: UiState = {
      name: "sign-in, after a wrong link",
      prepare: async () => "/sign-in?error=invalid_token",
      reach: async () => {
        await expect(page.locator("#token-error")).toBeVisible();
        await page.getByLabel("Server token").fill("a token");
      },
    };
    await expectUsableOnPhone(page, request, [signIn]);
  });
});

test.describe("a desktop with a keyboard", () => {
  test.use({ isMobile: false, hasTouch: false, viewport: { width: 1280, height: 800 } });

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
