import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

const WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
type Result = Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"][number];

/** One line per serious or critical finding: rule, where, what. */
const seriousLines = (violations: Result[]) =>
  violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(" ")}: ${v.help}${n.failureSummary ? ` — ${n.failureSummary.replace(/\s+/g, " ")}` : ""}`));

/**
 * axe's serious and critical findings, one line each: rule, where, what. `within` narrows it to a
 * part of the page; `rules`: the WCAG 2.1 A/AA rules (the walk of every UI state) or all of axe's.
 */
export async function seriousViolations(page: Page, { within, rules = "wcag" }: { within?: string; rules?: "wcag" | "all" } = {}): Promise<string[]> {
  // Violations only, and run in the page itself (the page has no frames; the default opens a blank page per run): several times faster.
  let builder = new AxeBuilder({ page }).options({ resultTypes: ["violations"] }).setLegacyMode(true);
  if (rules === "wcag") builder = builder.withTags(WCAG);
  if (within) builder = builder.include(within);
  const { violations } = await builder.analyze();
  return seriousLines(violations);
}

/** Rows a pointer rests on: a card's answers, options and choices, and the sidebar's chats. */
export const HOVER_ROWS = '[data-testid="question-card"] :is(button, label):not(:disabled), [data-testid="session-row"]';

/**
 * axe's colour-contrast findings with the pointer resting on each row in turn (at most `limit`),
 * once its hover colours have finished their transition: a hover fill must keep every text in the
 * row readable, its key hints too. Each line names the row hovered.
 */
export async function hoveredContrastViolations(page: Page, { rows = HOVER_ROWS, limit = 10 }: { rows?: string; limit?: number } = {}): Promise<string[]> {
  const found: string[] = [];
  const all = page.locator(rows);
  // Rows styled alike are coloured alike when hovered: one of each look is enough (each is an axe run).
  const looks = await all.evaluateAll((els) => els.map((el) => [el, ...el.querySelectorAll("*")].map((e) => e.getAttribute("class") ?? "").join("|")));
  const seen = new Set<string>();
  const count = Math.min(looks.length, limit);
  for (let i = 0; i < count; i++) {
    if (seen.has(looks[i]!)) continue;
    seen.add(looks[i]!);
    const row = all.nth(i);
    if (!(await row.isVisible())) continue;
    // Forced: a row under an open dialog's backdrop is hovered where it is, not waited for.
    await row.hover({ force: true });
    const name = await row.evaluate((el) => {
      el.setAttribute("data-axe-hovered", "");
      return `<${el.tagName.toLowerCase()}${el.getAttribute("data-testid") ? ` ${el.getAttribute("data-testid")}` : ""}> "${(el.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 30)}"`;
    });
    // A pulsing dot never finishes: wait for the transitions that end (the hover's colours).
    await page.evaluate(() =>
      Promise.all(
        document
          .getAnimations()
          .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity)
          .map((a) => a.finished.catch(() => undefined)),
      ),
    );
    const { violations } = await new AxeBuilder({ page })
      .options({ resultTypes: ["violations"] })
      .setLegacyMode(true)
      .withRules(["color-contrast"])
      .include("[data-axe-hovered]")
      .analyze();
    for (const line of seriousLines(violations)) found.push(`hovering ${name}: ${line}`);
    await row.evaluate((el) => el.removeAttribute("data-axe-hovered"));
  }
  // The pointer leaves the rows: later checks see them at rest.
  await page.mouse.move(0, 0);
  return found;
}
