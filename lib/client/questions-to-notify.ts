import type { Question } from "../protocol/question";
import { cardMode } from "../protocol/team-card";

/**
 * The pending questions a tab may notify of now: those that became the viewer's to answer since it
 * last looked (`seen`). A question that waits for other people is not the viewer's news: it is not
 * marked seen, so when an escalation names the viewer (its `question.updated`) it notifies then, once.
 * While who is viewing is unknown, only questions anyone may answer count.
 */
export function questionsToNotify(pending: Question[], me: string | null, seen: ReadonlySet<string>): { fresh: Question[]; seen: ReadonlySet<string> } {
  const fresh = pending.filter((q) => !seen.has(q.id) && cardMode(q, me) === "answer");
  return fresh.length === 0 ? { fresh, seen } : { fresh, seen: new Set([...seen, ...fresh.map((q) => q.id)]) };
}
