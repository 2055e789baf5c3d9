import { log } from "../log";
import type { QuestionStore } from "../store/questions/question-store";

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Whether this node keeps the expiry timers (several nodes: one does), and where it hands one otherwise. */
export interface TimerOwner {
  owns(): boolean;
  handOff(id: string, expiresAt: Date): void;
}

export const OWN_TIMERS: TimerOwner = { owns: () => true, handOff: () => {} };

/** What a question's timers do when they fire. */
export interface TimerActions {
  expire(id: string): Promise<unknown>;
  escalate(id: string): Promise<unknown>;
}

/** The expiry and escalation timers of pending questions, kept on the node that owns them. */
export interface QuestionTimers {
  /** A question asked here expires at `expiresAt`: timed here, or handed to the node that owns the timers. */
  expireLater(id: string, expiresAt: Date): void;
  /** Timed here when this node owns the timers (a question asked on another node). */
  expireAt(id: string, expiresAt: Date): void;
  /** The question's next escalation step, timed here when this node owns the timers. */
  escalateAt(id: string, at: Date): void;
  /** The question closed: its timers go. */
  clear(id: string): void;
  /** Every timer goes (this node no longer owns them, or it stops). */
  clearAll(): void;
  /** A timer for every pending question that expires or escalates (before `before`, when given) and has none yet. */
  rebuild(pending: Pick<QuestionStore, "listExpiring" | "listEscalating">, before?: Date): Promise<void>;
}

export function createQuestionTimers({ now, owner, actions }: { now: () => Date; owner: TimerOwner; actions: TimerActions }): QuestionTimers {
  const expiries = new Map<string, NodeJS.Timeout>();
  const escalations = new Map<string, NodeJS.Timeout>();

  /** A timer for `at` (re-armed past the longest setTimeout), kept in `map` under the question's id. */
  function timerAt(map: Map<string, NodeJS.Timeout>, id: string, at: Date, fire: () => Promise<unknown>, what: string): void {
    const old = map.get(id);
    if (old) clearTimeout(old);
    const delay = Math.max(0, at.getTime() - now().getTime());
    const timer = setTimeout(
      () => {
        map.delete(id);
        if (delay > MAX_TIMER_MS) return timerAt(map, id, at, fire, what);
        void fire().catch((err) => log.error({ questionId: id, err }, `[questions] could not ${what} ${id}`));
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    timer.unref();
    map.set(id, timer);
  }

  const scheduleExpiry = (id: string, expiresAt: Date) => timerAt(expiries, id, expiresAt, () => actions.expire(id), "time out");
  const scheduleEscalation = (id: string, at: Date) => timerAt(escalations, id, at, () => actions.escalate(id), "escalate");

  return {
    expireLater(id, expiresAt) {
      if (owner.owns()) scheduleExpiry(id, expiresAt);
      else owner.handOff(id, expiresAt);
    },
    expireAt(id, expiresAt) {
      if (owner.owns()) scheduleExpiry(id, expiresAt);
    },
    escalateAt(id, at) {
      if (owner.owns()) scheduleEscalation(id, at);
    },
    clear(id) {
      for (const map of [expiries, escalations]) {
        const timer = map.get(id);
        if (timer) clearTimeout(timer);
        map.delete(id);
      }
    },
    clearAll() {
      for (const map of [expiries, escalations]) {
        for (const timer of map.values()) clearTimeout(timer);
        map.clear();
      }
    },
    async rebuild(pending, before) {
      if (!owner.owns()) return;
      for (const { id, expiresAt } of await pending.listExpiring(before)) if (!expiries.has(id)) scheduleExpiry(id, expiresAt);
      for (const { id, escalateAt } of await pending.listEscalating(before)) if (!escalations.has(id)) scheduleEscalation(id, escalateAt);
    },
  };
}
