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

/**
 * What this tab does with its own answer's receipt: `retract` the card (it closed), `update` it (a
 * vote counted and the approval waits for more people: the card stays and shows the vote), show a
 * `late` notice first (someone else settled it), or `keep` it as it is (queued, or a changed
 * question the card reports).
 */
export type AfterReceipt = "retract" | "update" | "late" | "keep";

export function afterReceipt(receipt: ReplyReceipt, own: OwnAnswers): AfterReceipt {
  switch (receipt.outcome) {
    case "answered":
    case "declined":
    case "stale_target":
      return receipt.question.status === "pending" ? "keep" : "retract";
    case "queued":
      return "keep"; // recorded; the server applies it and broadcasts
    case "voted":
      return "update";
    case "already_answered":
    case "already_closed":
      return lostToSomeoneElse(receipt, own) ? "late" : "retract";
  }
}
