import { useEffect, useRef, useState } from "react";
import { judgeKey, nextChangeAt, startGuard, type KeyPlace } from "../client/card-key-guard";
import { lastTypedAt } from "./typing-clock";

export const SWALLOWED_NOTE = "Keys typed as the question appeared were not used: read it first, then answer.";
export const FOCUS_NOTE = "The question has the keys now: press a key again to answer.";
/** The hint while keys do nothing yet, and while the next one only takes the keys. */
export const WAITING_HINT = "Read the question: its keys work in a moment";
export const FOCUS_HINT = "Press any key to start answering";

/**
 * The browser card's key guard for a terminal prompt (lib/client/card-key-guard.ts): keys in its
 * first moments, or continuing a burst of typing, do nothing; after such keys the first one only
 * takes the keys. `allows` judges one key and says, in `note`, what happened to one it kept;
 * `hint(place)` replaces the prompt's key hint until a key pressed there would answer.
 */
export function useKeyGuard(now: () => number = () => performance.now()) {
  const guard = useRef(startGuard(now(), lastTypedAt()));
  const [note, setNote] = useState<string | null>(null);
  // Redrawn when what a key would do changes with time alone.
  const [, setTick] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refresh = () => {
    clearTimeout(timer.current);
    setTick((t) => t + 1);
    const at = nextChangeAt(guard.current, now());
    if (at !== null) timer.current = setTimeout(refresh, Math.max(0, at - now()) + 5);
  };
  useEffect(() => {
    refresh();
    return () => clearTimeout(timer.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once: the timer follows the guard from here
  }, []);
  const allows = (place: KeyPlace): boolean => {
    const step = judgeKey(guard.current, now(), place);
    const changed = step.guard !== guard.current;
    guard.current = step.guard;
    if (changed) refresh();
    if (step.verdict === "act") {
      if (place === "card") setNote(null);
      return true;
    }
    setNote(step.verdict === "focus" ? FOCUS_NOTE : SWALLOWED_NOTE);
    return false;
  };
  const hint = (place: KeyPlace): string | null => {
    if (guard.current.armed) return null;
    const verdict = judgeKey(guard.current, now(), place).verdict;
    return verdict === "ignore" ? WAITING_HINT : verdict === "focus" ? FOCUS_HINT : null;
  };
  return { allows, note, hint };
}
