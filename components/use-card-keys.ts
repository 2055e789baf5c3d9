"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from "react";
import { guardState, judgeKey, nextChangeAt, startGuard, type KeyGuard, type KeyPlace } from "@/lib/client/card-key-guard";
import { composerTypedAt } from "@/lib/client/composer-typing";

export interface CardKeys {
  /** A number key: the option (or answer) at this index. */
  pick(index: number): void;
  /** Escape, with the element it was pressed in. */
  escape(target: HTMLElement): void;
  /** Enter where it means nothing else: sends the card's current selection (a multi's ticks). */
  submit?(): void;
}

/** What the card's keys do now: `waiting` (swallowed), `focus` (the next key only focuses the card), `ready`. */
export type CardKeyState = "waiting" | "focus" | "ready";

export interface CardKeyControl {
  /** Gives the focus back to the card (its text field when it has one and nobody was typing elsewhere). */
  focusFirst(): void;
  state: CardKeyState;
  /** Says what happened to keys that were not for the card; null when none were. */
  note: string | null;
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

/** Keys that can answer, open a panel or press a button: the guard judges these and lets the rest (Tab, arrows) through. */
const guarded = (e: KeyboardEvent) => !e.altKey && !e.ctrlKey && !e.metaKey && (e.key.length === 1 || e.key === "Enter" || e.key === "Escape");

/**
 * A card's keyboard: number keys 1…`maxDigit` pick, Escape escapes, Enter submits — while focus is in
 * the card or nowhere in particular, never while typing. Keys not meant for the card (its first
 * moments, a burst of typing that began elsewhere) are swallowed first (lib/client/card-key-guard.ts).
 * On mount the focus goes to the card itself (never to an answer button), or to its
 * `[data-autofocus]` text field unless the person was typing in the composer.
 * The handlers are read at key time, so they always see the card's current state.
 */
export function useCardKeys(card: RefObject<HTMLElement | null>, handlers: CardKeys, maxDigit: number): CardKeyControl {
  const keys = useRef(handlers);
  useEffect(() => {
    keys.current = handlers;
  });
  const guard = useRef<KeyGuard | null>(null);
  const [state, setState] = useState<CardKeyState>("waiting");
  const [note, setNote] = useState<string | null>(null);

  // Reads refs only: the same function for the card's life, so the effect below runs once per card.
  const focusFirst = useCallback(() => {
    const field = guard.current?.interrupted ? null : card.current?.querySelector<HTMLElement>("[data-autofocus]");
    if (field) field.focus();
    else card.current?.focus({ preventScroll: true });
  }, [card]);

  // Before the card is painted: a key pressed once it can be seen is judged by the guard (a passive
  // effect ran after paint, and keys in between reached no listener and were lost unnoticed).
  useLayoutEffect(() => {
    const now = performance.now();
    guard.current = startGuard(now, composerTypedAt());
    // Someone typing in another field (a rule's pattern, a chat's name) keeps it: the card does not take the focus from them.
    const active = document.activeElement;
    if (!(active instanceof HTMLElement && active !== document.body && isTextField(active) && !card.current?.contains(active))) focusFirst();

    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      clearTimeout(timer);
      const g = guard.current!;
      setState(guardState(g, performance.now()));
      const at = nextChangeAt(g, performance.now());
      if (at !== null) timer = setTimeout(refresh, Math.max(0, at - performance.now()) + 5);
    };
    refresh();

    const swallowedUps = new Set<string>();
    const inReach = (target: HTMLElement) => target === document.body || card.current?.contains(target) === true;

    // Capture: the guard decides before a focused button or field of the card sees the key.
    const onGuard = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (!guarded(e) || !inReach(target) || e.isComposing) return;
      const place: KeyPlace = isTextField(target) ? (e.key === "Enter" ? "text-enter" : "text-char") : "card";
      const step = judgeKey(guard.current!, performance.now(), place);
      const before = guard.current!;
      guard.current = step.guard;
      if (step.verdict === "act") {
        if (place === "card") setNote(null);
        if (step.guard !== before) refresh();
        return;
      }
      e.preventDefault();
      e.stopImmediatePropagation();
      swallowedUps.add(e.key);
      if (step.verdict === "focus") {
        focusFirst();
        setNote("The card has the keys now: press a key again to answer.");
      } else {
        setNote("What you were typing was not used here. Read this first, then answer.");
      }
      refresh();
    };
    // A swallowed Space must not press a button on its key-up either.
    const onGuardUp = (e: KeyboardEvent) => {
      if (!swallowedUps.delete(e.key)) return;
      e.preventDefault();
      e.stopImmediatePropagation();
    };

    // 0: no number keys (a form's fields take what is typed).
    const digit = maxDigit > 0 ? new RegExp(`^[1-${Math.min(maxDigit, 9)}]$`) : null;
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      const target = e.target as HTMLElement;
      if (!inReach(target)) return;
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
    document.addEventListener("keydown", onGuard, true);
    document.addEventListener("keyup", onGuardUp, true);
    document.addEventListener("keydown", onKeyDown);
    return () => {
      clearTimeout(timer);
      document.removeEventListener("keydown", onGuard, true);
      document.removeEventListener("keyup", onGuardUp, true);
      document.removeEventListener("keydown", onKeyDown);
    };
  }, [card, focusFirst, maxDigit]);

  return { focusFirst, state, note };
}
