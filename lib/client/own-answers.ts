import type { Question, ReplyReceipt } from "../protocol/question";
import type { Ack } from "../protocol/socket";

/**
 * The questions this tab itself settled. Its ack comes before the broadcast that retracts the
 * question (which waits a moment, see ./coalesce), so without remembering them a second key press
 * would land on the question just answered, and its "already answered" would be blamed on another tab.
 */
export type OwnAnswers = ReadonlySet<string>;

/** Whether this ack means this tab's own answer settled the question (or is recorded to). */
export function settledHere(ack: Ack<ReplyReceipt>): boolean {
  return ack.ok && (ack.data.outcome === "answered" || ack.data.outcome === "declined" || ack.data.outcome === "queued");
}

/** The ids after this ack. */
export function afterAck(own: OwnAnswers, questionId: string, ack: Ack<ReplyReceipt>): OwnAnswers {
  return settledHere(ack) && !own.has(questionId) ? new Set([...own, questionId]) : own;
}

/** What the card still offers: the pending questions this tab has not already settled. */
export function stillOpen(pending: Question[], own: OwnAnswers): Question[] {
  return own.size === 0 ? pending : pending.filter((q) => !own.has(q.id));
}

/** Whether a lost race is worth a notice: not when the winner was this tab's own earlier answer. */
export function lostToSomeoneElse(receipt: ReplyReceipt, own: OwnAnswers): boolean {
  return (receipt.outcome === "already_answered" || receipt.outcome === "already_closed") && !own.has(receipt.question.id);
}
