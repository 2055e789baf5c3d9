import type { Question } from "../../protocol/question";
import type { DomainEvents } from "../events";
import type { QuestionStore } from "../store/questions/question-store";
import type { QuestionTimers } from "./question-timers";

/** The escalation steps of questions nobody allowed has answered. */
export interface Escalation {
  /**
   * The next escalation step: its people may answer from now on and are told. One conditional
   * update, so a step is taken once whichever node's timer fires; a step overdue after a restart is
   * taken at once, and the next one scheduled. Null when there was no step to take.
   */
  escalate(id: string): Promise<Question | null>;
}

export function createEscalation({ store, events, timers }: { store: Pick<QuestionStore, "find" | "escalate">; events: DomainEvents; timers: Pick<QuestionTimers, "escalateAt"> }): Escalation {
  return {
    async escalate(id) {
      const question = await store.find(id);
      if (!question || question.status !== "pending" || question.escalated >= question.escalate.length) return null;
      const step = question.escalate[question.escalated]!;
      const next = question.escalate[question.escalated + 1];
      const nextAt = next ? new Date(Date.parse(question.createdAt) + next.afterMs) : null;
      if (!(await store.escalate(id, question.escalated, nextAt))) return null;
      const escalated: Question = { ...question, escalated: question.escalated + 1 };
      events.emit("question.updated", escalated);
      events.emit("question.escalated", escalated, step.to);
      if (nextAt) timers.escalateAt(id, nextAt);
      return escalated;
    },
  };
}
