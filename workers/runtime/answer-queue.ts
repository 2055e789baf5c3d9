import { AskRefused } from "./errors";
import type { RunContext } from "./run-context";
import type { CallSettlement, Settlement } from "./types";

/**
 * What the parent sends back to a waiting run: a question's settlement (or its refusal) and a
 * child run's end. One that arrives before its wait began is kept for it (unless the run is parked).
 */
export interface AnswerQueue {
  /** The question's settlement: kept already, or the wait for it. */
  waitForQuestion(questionId: string): Promise<Settlement>;
  /** Takes a child run's end that arrived before its `call` waited for it. */
  takeCall(seq: number): CallSettlement | undefined;
  /** The wait for a child run's end. */
  waitForCall(seq: number): Promise<CallSettlement>;
  settle(questionId: string, settlement: Settlement): void;
  /** The server refused the question: its wait rejects with AskRefused. */
  refuse(questionId: string, error: { code: string; message: string }): void;
  settleCall(seq: number, settlement: CallSettlement): void;
  /** Rejects every wait (questions first, then calls), each with its own error. */
  rejectAll(error: () => Error): void;
  /** Drops every wait unsettled, and what was kept (the run is parked). */
  drop(): void;
  /** How many waits are pending. */
  size(): number;
}

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (err: Error) => void;
}

type Refusal = { refused: { code: string; message: string } };

export function createAnswerQueue(ctx: RunContext): AnswerQueue {
  const { own } = ctx;
  const questionWaiters = new Map<string, Waiter<Settlement>>();
  const callWaiters = new Map<number, Waiter<CallSettlement>>();
  const early = new Map<string, Settlement | Refusal>();
  const earlyCalls = new Map<number, CallSettlement>();

  return {
    waitForQuestion(questionId) {
      const arrived = early.get(questionId);
      if (arrived) {
        early.delete(questionId);
        if ("refused" in arrived) return Promise.reject(own(new AskRefused(arrived.refused.code, arrived.refused.message)));
        return Promise.resolve(arrived);
      }
      return new Promise<Settlement>((resolve, reject) => questionWaiters.set(questionId, { resolve, reject })).finally(() => questionWaiters.delete(questionId));
    },
    takeCall(seq) {
      const arrived = earlyCalls.get(seq);
      earlyCalls.delete(seq);
      return arrived;
    },
    waitForCall(seq) {
      return new Promise<CallSettlement>((resolve, reject) => callWaiters.set(seq, { resolve, reject })).finally(() => callWaiters.delete(seq));
    },
    settle(questionId, settlement) {
      const waiter = questionWaiters.get(questionId);
      if (waiter) waiter.resolve(settlement);
      else if (!ctx.isParked()) early.set(questionId, settlement);
    },
    refuse(questionId, error) {
      const waiter = questionWaiters.get(questionId);
      if (waiter) waiter.reject(own(new AskRefused(error.code, error.message)));
      else if (!ctx.isParked()) early.set(questionId, { refused: error });
    },
    settleCall(seq, settlement) {
      const waiter = callWaiters.get(seq);
      if (waiter) waiter.resolve(settlement);
      else if (!ctx.isParked()) earlyCalls.set(seq, settlement);
    },
    rejectAll(error) {
      for (const waiter of questionWaiters.values()) waiter.reject(error());
      for (const waiter of callWaiters.values()) waiter.reject(error());
    },
    drop() {
      // The waiting promises are dropped unsettled: with nothing referring to them, they and the
      // function's suspended frames are garbage. Replay brings the run back.
      questionWaiters.clear();
      callWaiters.clear();
      early.clear();
      earlyCalls.clear();
    },
    size: () => questionWaiters.size + callWaiters.size,
  };
}
