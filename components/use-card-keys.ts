"use client";

import { useEffect, useRef, type RefObject } from "react";

export interface CardKeys {
  /** A number key: the option (or answer) at this index. */
  pick(index: number): void;
  /** Escape, with the element it was pressed in. */
  escape(target: HTMLElement): void;
  /** Enter where it means nothing else: sends the card's current selection (a multi's ticks). */
  submit?(): void;
}

/** Whether typing in this element is text (number keys and the like belong to it). */
export function isTextField(el: HTMLElement): boolean {
  if (el instanceof HTMLTextAreaElement || el.isContentEditable) return true;
  return el instanceof HTMLInputElement && !["checkbox", "radio", "button", "submit", "reset"].includes(el.type);
}

/** Whether Enter already does something here (presses the button, follows the link, opens the details). */
export function ownsEnter(el: HTMLElement): boolean {
  return isTextField(el) || el.closest("button, a[href], summary, select, [role=button], [role=link]") !== null;
}

/**
 * A card's keyboard: number keys 1…`maxDigit` pick, Escape escapes, Enter submits — while focus is in the card or
 * nowhere in particular, never while typing. Focuses the card's `[data-autofocus]` element on mount.
 * The handlers are read at key time, so they always see the card's current state.
 */
export function useCardKeys(card: RefObject<HTMLElement | null>, handlers: CardKeys, maxDigit: number): () => void {
  const keys = useRef(handlers);
  useEffect(() => {
    keys.current = handlers;
  });
  const focusFirst = () => card.current?.querySelector<HTMLElement>("[data-autofocus]")?.focus();

  useEffect(() => {
    focusFirst();
    // 0: no number keys (a form's fields take what is typed).
    const digit = maxDigit > 0 ? new RegExp(`^[1-${Math.min(maxDigit, 9)}]$`) : null;
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      const target = e.target as HTMLElement;
      if (target !== document.body && !card.current?.contains(target)) return;
      if (e.key === "Escape") {
        e.preventDefault();
        keys.current.escape(target);
        return;
      }
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing && keys.current.submit && !ownsEnter(target)) {
        e.preventDefault();
        keys.current.submit();
        return;
      }
      if (!digit || isTextField(target) || !digit.test(e.key)) return;
      e.preventDefault();
      keys.current.pick(Number(e.key) - 1);
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [maxDigit]);

  return focusFirst;
}
