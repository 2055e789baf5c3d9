import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { Api } from "./chat-page";
import { CARD_STATES, DESKTOP, PAGE_STATES, PHONE, type UiState } from "./ui-states";

/** Issue 27, item 6: axe finds nothing serious or critical in any page or card state, on a desktop and on a phone. */

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
const SCREENS = { desktop: DESKTOP, phone: PHONE } as const;

/** axe's serious and critical findings, one line each: rule, where, what. `within` narrows it to a part of the page. */
async function seriousViolations(page: Page, within?: string): Promise<string[]> {
  const builder = new AxeBuilder({ page }).withTags(TAGS);
  const { violations } = await (within ? builder.include(within) : builder).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(" ")}: ${v.help}${n.failureSummary ? ` — ${n.failureSummary.replace(/\s+/g, " ")}` : ""}`));
}

/** The state made once on the server, then looked at on a desktop and on a phone; every finding of both reported at once. */
async function expectNoSeriousViolations(browser: Browser, request: APIRequestContext, state: UiState, { signedIn = true, within }: { signedIn?: boolean; within?: string } = {}) {
  const { baseURL, storageState } = test.info().project.use;
  const path = await state.prepare(new Api(request), request);
  const found: string[] = [];
  for (const [screen, options] of Object.entries(SCREENS)) {
    const context = await browser.newContext({ ...options, baseURL, storageState: signedIn ? storageState : undefined });
    const page = await context.newPage();
    await page.goto(path);
    await state.reach(page);
    for (const line of await seriousViolations(page, within)) found.push(`${screen}: ${line}`);
    await context.close();
  }
  expect(found, `${state.name}:\n${found.join("\n")}`).toEqual([]);
}

test.describe("axe on every card kind, desktop and phone", () => {
  // The chat around a card is the same for every kind: the whole page is checked with two cards waiting, the other states' cards on their own.
  for (const state of CARD_STATES) {
    test(state.name, async ({ browser, request }) => {
      await expectNoSeriousViolations(browser, request, state, { within: state.name === "two questions waiting" ? undefined : '[data-testid="question-card"]' });
    });
  }
});

test.describe("axe on every page, desktop and phone", () => {
  for (const state of PAGE_STATES) {
    test(state.name, async ({ browser, request }) => {
      await expectNoSeriousViolations(browser, request, state);
    });
  }

  test("sign-in, after a wrong link", async ({ browser, request }) => {
    const signIn: UiState = {
      name: "sign-in, after a wrong link",
      prepare: async () => "/sign-in?error=invalid_token",
      reach: async (page) => {
        await expect(page.locator("#token-error")).toBeVisible();
      },
    };
    await expectNoSeriousViolations(browser, request, signIn, { signedIn: false });
  });
});
