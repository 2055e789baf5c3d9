import type { Clock, ClockTimer } from "../clock";

/**
 * A run's execution clock: the time it works (time waiting for a person is not counted), and the
 * timer that fires when its budget is spent.
 */
export class ActiveClock {
  private since: number | null = null;
  /** Time run before `since`, stored or not. */
  private base = 0;
  private budget: ClockTimer | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly limitMs: () => number,
    private readonly onOver: () => void,
  ) {}

  /** The time the run had spent when it was loaded. */
  resetTo(storedMs: number): void {
    this.base = storedMs;
  }

  start(): void {
    if (this.since !== null) return;
    this.since = this.clock.now();
    this.budget = this.clock.setTimeout(this.onOver, Math.max(0, this.limitMs() - this.base));
  }

  /** The time it has run until `at` since it last started, without stopping it; null when it is not running. */
  runningUntil(at: number): number | null {
    return this.since === null ? null : Math.max(0, at - this.since);
  }

  /** Stops the clock (at `at`, by default now): the time it ran (not yet stored), or null when it was not running. */
  stop(at = this.clock.now()): number | null {
    if (this.since === null) return null;
    this.clock.clearTimeout(this.budget);
    const elapsed = Math.max(0, at - this.since);
    this.since = null;
    this.base += elapsed;
    return elapsed;
  }

  /** The budget no longer fires (the server shuts down); the time keeps counting. */
  disarm(): void {
    this.clock.clearTimeout(this.budget);
  }
}
