/** How often a wait looks again when nothing was heard: a run on another node tells this node nothing. */
export const TURN_RECHECK_MS = 250;

export interface TurnWatch {
  /** Resolves at the session's next question or run change since the last call, or after `ms`, whichever comes first. */
  next(ms: number): Promise<void>;
  stop(): void;
}

/**
 * Wakes a chat turn's wait when something in its session changes (`listen` calls back: a question
 * asked, a run's state), instead of polling: listening before the turn starts, so a change that
 * comes first is not missed. `listen` returns the function that stops it.
 */
export function watchTurn(listen: (heard: () => void) => () => void): TurnWatch {
  let changed = false;
  let wake: (() => void) | null = null;
  const stopListening = listen(() => {
    changed = true;
    wake?.();
  });
  return {
    next(ms) {
      if (changed) {
        changed = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(0, ms));
        function done() {
          clearTimeout(timer);
          wake = null;
          changed = false;
          resolve();
        }
        wake = done;
      });
    },
    stop() {
      stopListening();
      wake?.();
    },
  };
}
