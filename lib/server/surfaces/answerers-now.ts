import type { Question } from "../../protocol/question";
import { waitingFor } from "../../protocol/teams";
import type { Db } from "../store/db/client";
import { createMemberStore } from "../store/members/member-store";
import { createSessionStore } from "../store/sessions/session-store";

/**
 * Who a surface tells of a waiting question: `to` (the people an escalation just added), else those
 * it waits for (its answerers, as escalated so far), else everyone in its chat (owner and members).
 */
export function createAnswerersNow(db: Db) {
  const sessions = createSessionStore(db.exec);
  const members = createMemberStore(db.exec);
  return async (question: Question, to?: readonly string[]): Promise<string[]> => {
    if (to) return [...to];
    const waiting = waitingFor(question);
    if (waiting) return waiting;
    const session = await sessions.live(question.sessionId);
    return session ? [session.ownerId, ...(await members.names(question.sessionId))] : [];
  };
}

export type AnswerersNow = ReturnType<typeof createAnswerersNow>;
