import type { Question } from "../protocol/question";

/**
 * Where settled questions go, built before the services on either side of it: the question
 * service settles into it, and the run service (the answer queue) is connected once it exists.
 */
export interface SettlementPort {
  /** A question was settled: its run gets it. */
  settled(question: Question): void;
  /** Connects the answer queue; settlements reach it from then on. */
  deliverTo(receiver: (question: Question) => void): void;
}

export function createSettlementPort(): SettlementPort {
  let receiver: ((question: Question) => void) | null = null;
  return {
    settled(question) {
      if (!receiver) throw new Error("A question was settled before the answer queue was connected.");
      receiver(question);
    },
    deliverTo(next) {
      receiver = next;
    },
  };
}
