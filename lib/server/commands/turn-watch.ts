import type { DomainEvents } from "../events";

/** How often a wait looks again when nothing was heard: a run on another node tells this node nothing. */
export const TURN_RECHECK_MS = 250;

export interface TurnWatch {
  /** Resolves at the session's next question or run change since the last call, or after `ms`, whichever comes first. */
  next(ms: number): Promise<void>;
  stop(): void;
}

/**
 * Wakes a chat turn's wait when something in its session changes (a question asked, a run's state),
 * instead of polling: subscribed before the turn starts, so a change that comes first is not missed.
 */
export function watchTurn(events: DomainEvents, sessionId: string): TurnWatch {
  let changed = false;
  let wake: (() => void) | null = null;
  const heard = (s: { sessionId: string }) => {
    if (s.sessionId !== sessionId) return;
    changed = true;
    wake?.();
  };
  events.on("question.asked", heard);
  events.on("run.updated", heard);
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
      events.off("question.asked", heard);
      events.off("run.updated", heard);
      wake?.();
    },
  };
}
