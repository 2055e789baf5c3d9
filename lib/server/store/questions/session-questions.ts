import type { SqlExecutor } from "../sql-executor";
import type { RowOf } from "../typed-sql";
import * as Q from "./question-statements";

/** A question's row with its run's root. */
export type QuestionRow = RowOf<typeof Q.byId>;

/** A session's questions, as its history, snapshot and text commands read them. */
export interface SessionQuestions {
  /** Its pending questions, oldest first. */
  pending(sessionId: string): Promise<QuestionRow[]>;
  /** Its closed questions, most recently closed first. */
  closed(sessionId: string, limit: number): Promise<QuestionRow[]>;
  /** Its closed questions asked before a place (its time, then its id; null: its newest), newest first. */
  closedBefore(sessionId: string, before: { at: Date; id: string } | null, limit: number): Promise<QuestionRow[]>;
}

export function createSessionQuestions(exec: SqlExecutor): SessionQuestions {
  return {
    pending: (sessionId) => exec.rows(Q.pendingInSession, { sessionId }),
    closed: (sessionId, limit) => exec.rows(Q.closedInSession, { sessionId, limit }),
    closedBefore: (sessionId, before, limit) => exec.rows(Q.closedBefore, { sessionId, beforeAt: before?.at ?? null, beforeId: before?.id ?? null, limit }),
  };
}
