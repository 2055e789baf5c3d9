import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

const WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

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
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(" ")}: ${v.help}${n.failureSummary ? ` — ${n.failureSummary.replace(/\s+/g, " ")}` : ""}`));
}
