import type { KeyboardEvent } from "react";

/** What Tab can reach inside a dialog. */
export const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Keeps Tab and Shift+Tab inside a modal panel: past the last control back to the first, and the other way round. */
export function keepTabInside(e: KeyboardEvent, panel: HTMLElement | null): void {
  if (e.key !== "Tab" || !panel) return;
  e.stopPropagation();
  // Hidden controls (a closed menu) are skipped; the focused one always counts.
  const items = [...panel.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
  if (items.length === 0) return;
  const first = items[0]!;
  const last = items.at(-1)!;
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}
