import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** axe's serious and critical findings, one line each: rule, where, what. `within` narrows it to a part of the page. */
export async function seriousViolations(page: Page, within?: string): Promise<string[]> {
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
