import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { Api } from "./chat-page";
import { CARD_STATES, DESKTOP, PAGE_STATES, PHONE, type UiState } from "./ui-states";

/** Issue 27, item 6: axe finds nothing serious or critical in any page or card state, on a desktop and on a phone. */

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
const SCREENS = { desktop: DESKTOP, phone: PHONE } as const;

/** axe's serious and critical findings, one line each: rule, where, what. `within` narrows it to a part of the page. */
async function seriousViolations(page: Page, within?: string): Promise<string[]> {
  // Violations only, and run in the page itself (the page has no frames; the default opens a blank page per run): several times faster.
  const builder = new AxeBuilder({ page })
    .withTags(TAGS)
    .options({ resultTypes: ["violations"] })
    .setLegacyMode(true);
  const { violations } = await (within ? builder.include(within) : builder).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(" ")}: ${v.help}${n.failureSummary ? ` — ${n.failureSummary.replace(/\s+/g, " ")}` : ""}`));
}

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

/** The state made once on the server, then looked at on a desktop and on a phone; every finding of both reported at once. */
async function expectNoSeriousViolations(request: APIRequestContext, state: UiState, within?: string) {
  const path = await state.prepare(new Api(request), request);
  const found: string[] = [];
  for (const [screen, page] of Object.entries(tabs)) {
    await page.goto(path);
    await state.reach(page);
    for (const line of await seriousViolations(page, within)) found.push(`${screen}: ${line}`);
  }
  await state.cleanup?.(request);
  expect(found, `${state.name}:\n${found.join("\n")}`).toEqual([]);
}

test.describe("axe on every card kind, desktop and phone", () => {
  // The chat around a card is the same for every kind: the whole page is checked with two cards waiting, the other states' cards on their own.
  for (const state of CARD_STATES) {
    test(state.name, async ({ request }) => {
      await expectNoSeriousViolations(request, state, state.name === "two questions waiting" ? undefined : '[data-testid="question-card"]');
    });
  }
});

test.describe("axe on every page, desktop and phone", () => {
  for (const state of PAGE_STATES) {
    test(state.name, async ({ request }) => {
      await expectNoSeriousViolations(request, state);
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
      for (const line of await seriousViolations(page)) found.push(`${screen}: ${line}`);
      await context.close();
    }
    expect(found, found.join("\n")).toEqual([]);
  });
});
