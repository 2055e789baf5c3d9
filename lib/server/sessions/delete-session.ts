import type { DomainEvents } from "../events";
import type { QuestionService } from "../questions/question-service";
import type { RunService } from "../runs/run-service";
import type { SessionService } from "./session-service";

export interface DeleteSessionDeps {
  sessions: Pick<SessionService, "markDeleted" | "removeDeleted">;
  members: { names(sessionId: string): Promise<string[]> };
  runs: Pick<RunService, "stopSessionRuns">;
  questions: Pick<QuestionService, "listPending" | "closeForRun">;
  events: DomainEvents;
}

export type DeleteSession = (request: { id: string }) => Promise<{ id: string; deleted: true }>;

/**
 * Deletes a chat. In this order: the session is marked deleted (from then on it is not found,
 * and no run can start in it: a run's insert checks the mark in its own transaction); its
 * active runs are stopped, which cancels their pending questions (every tab retracts the
 * cards: `question.rejected`, status `cancelled`); anything still pending is cancelled; the
 * session is removed with all it holds; then its people's tabs (its owner's and members') hear `session.deleted`.
 * Of concurrent deletes one does this and the others get not_found.
 */
export function createDeleteSession({ sessions, members, runs, questions, events }: DeleteSessionDeps): DeleteSession {
  return async ({ id }) => {
    const { ownerId } = await sessions.markDeleted({ id });
    // Read before its rows go with it: nobody is added to a session whose delete has begun.
    const people = [ownerId, ...(await members.names(id))];
    const reason = "The chat was deleted.";
    await runs.stopSessionRuns({ sessionId: id, reason });
    const leftover = new Set((await questions.listPending({ sessionId: id })).map((q) => q.runId));
    for (const runId of leftover) await questions.closeForRun({ runId, status: "cancelled", by: "stop", feedback: reason });
    await sessions.removeDeleted({ id });
    events.emit("session.deleted", { id, people });
    return { id, deleted: true };
  };
}
