/** Time as the domain sees it: injected, so tests can drive timers by hand. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): ClockTimer;
  clearTimeout(timer: ClockTimer | undefined): void;
}

export type ClockTimer = { unref?: () => unknown } | number | object;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return timer;
  },
  clearTimeout(timer) {
    if (timer !== undefined) clearTimeout(timer as NodeJS.Timeout);
  },
};
