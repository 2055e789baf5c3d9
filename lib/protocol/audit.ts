import type { Question } from "./question";

/** Where a settled question was answered from, in words (its `closedBy`). */
const SURFACES: Record<string, string> = {
  socket: "in a browser tab",
  rest: "over REST",
  cli: "from the CLI",
  text: "by a text command",
  rule: "by a permission rule",
  timeout: "by its timeout",
  stop: "by a stop",
  run_end: "when its run ended",
  worker_exit: "when its worker was lost",
  restart: "at a server restart",
};

export const surfaceOf = (closedBy: string | null): string => (closedBy ? (SURFACES[closedBy] ?? closedBy) : "");

const minutes = (ms: number) => Math.round(ms / 60_000);

/** What was asked, in one line: the prompt, or for an approval the tool and its subject. */
export function askedLine(q: Question): string {
  return q.approval ? `${q.owner} asked to use ${q.approval.tool}: ${q.approval.subject}` : `${q.owner} asked: ${q.prompt}`;
}

/** How it ended, in one line ("Allowed always, in a browser tab", "No answer in 30 minutes: denied, by its timeout" …); empty while pending. */
export function outcomeLine(q: Question): string {
  if (q.status === "pending") return "";
  const where = surfaceOf(q.closedBy);
  const feedback = q.feedback ? `: ${q.feedback}` : "";
  if (q.kind === "approval") {
    const waited = q.expiresAt ? minutes(Date.parse(q.expiresAt) - Date.parse(q.createdAt)) : null;
    switch (q.status) {
      case "answered":
        return q.closedBy === "rule" ? (q.feedback ?? "Allowed by a rule") : `Allowed ${q.answer === "always" ? "always" : "once"}, ${where}`;
      case "declined":
        return q.closedBy === "rule" ? (q.feedback ?? "Denied by a rule") : `Rejected, ${where}${feedback}`;
      case "timed_out":
        return `No answer in ${waited ?? "the allowed"} minutes: ${q.approval?.fallback === "allow" ? "allowed" : "denied"}`;
      default:
        return `${q.status === "cancelled" ? "Cancelled" : "Expired"}, ${where}${feedback}`;
    }
  }
  switch (q.status) {
    case "answered":
      return `Answered ${JSON.stringify(q.answer)}, ${where}`;
    case "declined":
      return `Declined, ${where}${feedback}`;
    case "timed_out":
      return `Timed out${q.hasDefault ? ` (default ${JSON.stringify(q.default)})` : ""}`;
    default:
      return `${q.status === "cancelled" ? "Cancelled" : "Expired"}, ${where}${feedback}`;
  }
}
