import type { Question, ReplyReceipt } from "../protocol/question";
import { describeVia } from "../protocol/audit";
import type { SessionAction } from "./session-store";
import type { SessionTransport } from "./transport";

/** A settled question leaves the screen: answered, or closed any other way. */
export function retraction(question: Question): SessionAction {
  return { type: question.status === "answered" ? "question.replied" : "question.rejected", question };
}

/** Why a reply lost its race, from where the winner came: "Already answered in another tab", "… in a terminal". */
export function lateText(receipt: ReplyReceipt, self: SessionTransport["surface"]): string {
  if (receipt.outcome === "already_answered") {
    const { closedBy } = receipt.question;
    if (closedBy === self) return self === "socket" ? "Already answered in another tab" : "Already answered in another terminal";
    const via = describeVia(closedBy);
    return via ? `Already answered ${via}` : "Already answered";
  }
  const how = receipt.question.status.replace("_", " ");
  return `This question has already closed (${how})`;
}
