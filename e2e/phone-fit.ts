import type { Page } from "@playwright/test";

/** The smallest target a finger hits reliably. */
export const MIN_TARGET = 44;

/**
 * What is wrong with the page as a phone shows it, one line per problem (empty when none): the
 * page scrolls sideways (wide content must scroll in a box of its own, which keys can reach), a
 * target under 44×44 px, a hint for keys a phone does not have, a chat's title cut to a letter or two.
 */
export function phoneProblems(page: Page): Promise<string[]> {
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

    // A title cut short must keep a word's room (the header wraps it to two lines first).
    const title = document.querySelector('[data-testid="session-title"]');
    if (title && shown(title)) {
      const cut = title.scrollWidth > title.clientWidth + 1 || title.scrollHeight > title.clientHeight + 1;
      const { width } = title.getBoundingClientRect();
      if (cut && width < 48) problems.push(`the chat's title is cut to ${Math.round(width)}px: "${title.textContent}"`);
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
