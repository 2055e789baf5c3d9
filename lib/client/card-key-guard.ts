/**
 * Whether a key press reaching a question card is meant for it. A card appears while the person may
 * be typing something else (the composer, another card): such keys must not answer it. Keys within
 * CARD_SETTLE_MS of the card appearing, and keys that continue a burst of typing (each within
 * TYPING_GAP_MS of the one before), do nothing; when a key was swallowed so, the first key after
 * the pause only focuses the card, and the next one answers.
 */

/** Keys this soon after a card appears are not for it: a person cannot have read it yet. */
export const CARD_SETTLE_MS = 700;
/** Keys closer together than this are one burst of typing. */
export const TYPING_GAP_MS = 1_000;

export interface KeyGuard {
  shownAt: number;
  /** The last key typed elsewhere before the card appeared, or swallowed since; null: none. */
  lastKeyAt: number | null;
  /** Keys were swallowed (or typing was under way when the card came): the next deliberate key only focuses the card. */
  interrupted: boolean;
  /** A deliberate key went through: keys answer from now on. */
  armed: boolean;
}

/** `ignore`: swallow the key; `focus`: swallow it and focus the card; `act`: the card handles it. */
export type KeyVerdict = "ignore" | "focus" | "act";

/** Where a key was pressed: a text field of the card takes its characters whatever the guard says, only its Enter sends. */
export type KeyPlace = "card" | "text-char" | "text-enter";

/** A card that appeared at `shownAt`; `typedAt` is the last key typed in the composer (or null). */
export function startGuard(shownAt: number, typedAt: number | null): KeyGuard {
  const typing = typedAt !== null && shownAt - typedAt < TYPING_GAP_MS;
  return { shownAt, lastKeyAt: typing ? typedAt : null, interrupted: typing, armed: false };
}

/** The verdict on a key pressed at `now`, and the guard after it. */
export function judgeKey(guard: KeyGuard, now: number, place: KeyPlace = "card"): { verdict: KeyVerdict; guard: KeyGuard } {
  const early = now - guard.shownAt < CARD_SETTLE_MS;
  // A text field the person is typing in: the characters are theirs, an early Enter is not.
  if (place === "text-char") return { verdict: "act", guard };
  if (place === "text-enter") return early ? { verdict: "ignore", guard: { ...guard, interrupted: true } } : { verdict: "act", guard };
  if (guard.armed) return { verdict: "act", guard };
  const burst = guard.lastKeyAt !== null && now - guard.lastKeyAt < TYPING_GAP_MS;
  if (early || burst) return { verdict: "ignore", guard: { ...guard, lastKeyAt: now, interrupted: true } };
  if (guard.interrupted) return { verdict: "focus", guard: { ...guard, lastKeyAt: now, armed: true } };
  return { verdict: "act", guard: { ...guard, armed: true } };
}

/** What the next key would do if it came at `now`: "waiting" (swallowed), "focus" (only focuses) or "ready" (answers). */
export function guardState(guard: KeyGuard, now: number): "waiting" | "focus" | "ready" {
  if (guard.armed) return "ready";
  const verdict = judgeKey(guard, now).verdict;
  return verdict === "ignore" ? "waiting" : verdict === "focus" ? "focus" : "ready";
}

/** When, after `now`, `guardState` next changes if no key comes (null: it will not; a card left waiting hours schedules nothing). */
export function nextChangeAt(guard: KeyGuard, now: number): number | null {
  if (guard.armed) return null;
  const at = Math.max(guard.shownAt + CARD_SETTLE_MS, guard.lastKeyAt === null ? 0 : guard.lastKeyAt + TYPING_GAP_MS);
  return at > now ? at : null;
}
