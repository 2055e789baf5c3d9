import { afterEach, beforeEach, vi } from "vitest";
import { cleanup } from "ink-testing-library";

/**
 * A terminal prompt's key guard reads performance.now: a test moves this clock on as a person's
 * pauses would (`clock.now += 5_000`). Each test's prompts are unmounted before the real clock is
 * back, so no prompt's timer outlives its test.
 */
export function promptClock(): { now: number } {
  const clock = { now: 0 };
  beforeEach(() => {
    clock.now = 0;
    vi.spyOn(performance, "now").mockImplementation(() => clock.now);
  });
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });
  return clock;
}
