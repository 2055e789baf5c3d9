import { describe, expect, it } from "vitest";
import { CARD_SETTLE_MS, TYPING_GAP_MS, guardState, judgeKey, nextChangeAt, startGuard, type KeyGuard, type KeyPlace } from "./card-key-guard";

/** Presses keys at the given times (ms on a fake clock) and lists the verdicts. */
function press(guard: KeyGuard, times: number[], place: KeyPlace = "card") {
  const verdicts: string[] = [];
  for (const t of times) {
    const step = judgeKey(guard, t, place);
    verdicts.push(step.verdict);
    guard = step.guard;
  }
  return { verdicts, guard };
}

describe("a card that appears while nobody types", () => {
  const guard = startGuard(10_000, null);

  it("swallows keys in its first moments", () => {
    expect(press(guard, [10_000, 10_100, 10_000 + CARD_SETTLE_MS - 1]).verdicts).toEqual(["ignore", "ignore", "ignore"]);
  });

  it("answers a key pressed once it has settled", () => {
    expect(press(guard, [10_000 + CARD_SETTLE_MS, 10_000 + CARD_SETTLE_MS + 50]).verdicts).toEqual(["act", "act"]);
  });

  it("after an early key, waits for a pause, then only focuses on the next key, then answers", () => {
    // 650 is swallowed; 1200 is within a second of it (still the same burst); 2300 comes after a pause.
    expect(press(guard, [10_650, 11_200, 12_300, 12_400]).verdicts).toEqual(["ignore", "ignore", "focus", "act"]);
  });

  it("reports its state for the card to show, and when it changes", () => {
    expect(guardState(guard, 10_000)).toBe("waiting");
    expect(nextChangeAt(guard, 10_000)).toBe(10_000 + CARD_SETTLE_MS);
    // Once that moment has passed, nothing more is scheduled until a key comes.
    expect(nextChangeAt(guard, 10_000 + CARD_SETTLE_MS)).toBeNull();
    expect(guardState(guard, 10_000 + CARD_SETTLE_MS)).toBe("ready");
    const swallowed = judgeKey(guard, 10_500).guard;
    expect(nextChangeAt(swallowed, 10_600)).toBe(10_500 + TYPING_GAP_MS);
    expect(guardState(swallowed, 11_000)).toBe("waiting");
    expect(guardState(swallowed, 11_500)).toBe("focus");
    const armed = judgeKey(swallowed, 11_600).guard;
    expect(guardState(armed, 11_600)).toBe("ready");
    expect(nextChangeAt(armed, 11_600)).toBeNull();
  });
});

describe("a card that appears while the person types in the composer", () => {
  it("swallows Enter, Space and 1 typed right after it came, and the rest of the burst", () => {
    const guard = startGuard(5_000, 4_900);
    expect(guard.interrupted).toBe(true);
    // Typing goes on every 150 ms for three seconds, well past the settle time.
    const burst = Array.from({ length: 20 }, (_, i) => 5_000 + i * 150);
    const { verdicts, guard: after } = press(guard, burst);
    expect(verdicts.every((v) => v === "ignore")).toBe(true);
    // The first key after a pause only focuses the card.
    expect(press(after, [burst.at(-1)! + TYPING_GAP_MS, burst.at(-1)! + TYPING_GAP_MS + 300]).verdicts).toEqual(["focus", "act"]);
  });

  it("still counts the composer's last key when the card settles quickly", () => {
    // Shown 100 ms after the last key: settled at 5 700 by time, but the typing gap ends at 5 900.
    const guard = startGuard(5_000, 4_900);
    expect(press(guard, [5_750]).verdicts).toEqual(["ignore"]);
    expect(press(guard, [5_900]).verdicts).toEqual(["focus"]);
  });

  it("forgets typing older than the gap", () => {
    const guard = startGuard(5_000, 5_000 - TYPING_GAP_MS);
    expect(guard.interrupted).toBe(false);
    expect(press(guard, [5_000 + CARD_SETTLE_MS]).verdicts).toEqual(["act"]);
  });
});

describe("a text field of the card", () => {
  const guard = startGuard(0, null);

  it("keeps the characters typed in it", () => {
    expect(press(guard, [10, 20, 30], "text-char").verdicts).toEqual(["act", "act", "act"]);
  });

  it("ignores an early Enter, and sends a later one even right after typing", () => {
    expect(press(guard, [100], "text-enter").verdicts).toEqual(["ignore"]);
    expect(press(guard, [CARD_SETTLE_MS + 10], "text-enter").verdicts).toEqual(["act"]);
  });
});
