/**
 * Applies things that arrive close together in one go. The server announces each question it
 * settles as its own event: an "Allow always" that settles two approvals (or a Stop that cancels
 * several questions) reaches a tab as separate socket messages, and applying them one by one
 * draws the second card alone for a moment. Held items wait until nothing new came for `quietMs`
 * (at most `maxMs` after the first), then are applied together, in order.
 */
export interface Coalescer<T> {
  /** Holds an item until the batch is applied. */
  hold(item: T): void;
  /** Whether items are waiting (anything arriving now should queue behind them to keep the order). */
  readonly waiting: boolean;
  /** Applies what is held now. */
  flush(): void;
  /** Drops what is held (the view is going away). */
  cancel(): void;
}

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export function createCoalescer<T>(apply: (items: T[]) => void, { quietMs = 40, maxMs = 200, timers = realTimers }: { quietMs?: number; maxMs?: number; timers?: Timers } = {}): Coalescer<T> {
  let held: T[] = [];
  let quiet: unknown = null;
  let deadline: unknown = null;

  const stop = () => {
    if (quiet !== null) timers.clear(quiet);
    if (deadline !== null) timers.clear(deadline);
    quiet = deadline = null;
  };
  const flush = () => {
    stop();
    const items = held;
    held = [];
    if (items.length > 0) apply(items);
  };

  return {
    hold(item) {
      held.push(item);
      if (quiet !== null) timers.clear(quiet);
      quiet = timers.set(flush, quietMs);
      deadline ??= timers.set(flush, maxMs);
    },
    get waiting() {
      return held.length > 0;
    },
    flush,
    cancel() {
      stop();
      held = [];
    },
  };
}
