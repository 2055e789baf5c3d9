import { describeFormAnswer, isFlatForm } from "./forms";
import type { Question } from "./question";

/** Where a settled question was answered from, in words (its `closedBy`): the browser and the CLI say it the same way. */
const VIA: Record<string, string | null> = {
  socket: "in a browser tab",
  terminal: "in a terminal",
  rest: "over REST",
  push: "from a notification",
  cli: "from the CLI",
  text: "by a text command",
  channel: "from a text channel",
  rule: "by a rule",
  timeout: null,
  stop: "when the run was stopped",
  run_end: "when the run ended",
  worker_exit: "when its worker stopped",
  restart: "at a server restart",
  internal: null,
};

/** From where a question was settled; an unknown surface is named as stored; null when the outcome says it. */
export function describeVia(closedBy: string | null): string | null {
  if (closedBy === null) return null;
  return closedBy in VIA ? VIA[closedBy]! : `via ${closedBy}`;
}

/** Who stopped a run, for its transcript line and its error: the person who owns the chat reads "you". */
export function stoppedBy(by: "rest" | "cli" | "asker"): string {
  if (by === "asker") return "Withdrawn by the asker.";
  return by === "cli" ? "Stopped from the CLI." : "Stopped by you.";
}

/** "30 minutes", "20 seconds", "1 hour", "90 minutes". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (seconds < 120) return unit(seconds, "second");
  const minutes = Math.round(seconds / 60);
  if (minutes % 60 !== 0 || minutes < 60) return unit(minutes, "minute");
  return unit(minutes / 60, "hour");
}

/** What was asked, in one line: the prompt, or for an approval the tool and its subject. */
export function askedLine(q: Question): string {
  return q.approval ? `${q.owner} asked to use ${q.approval.tool}: ${q.approval.subject}` : `${q.owner} asked: ${q.prompt}`;
}

/** How it ended, in one line ("Allowed always, in a browser tab", "No answer in 30 minutes: denied, by its timeout" …); empty while pending. */
export function outcomeLine(q: Question): string {
  if (q.status === "pending") return "";
  const via = describeVia(q.closedBy);
  const where = via ? `, ${via}` : "";
  const feedback = q.feedback ? `: ${q.feedback}` : "";
  if (q.kind === "approval") {
    const waited = q.expiresAt ? formatDuration(Date.parse(q.expiresAt) - Date.parse(q.createdAt)) : null;
    switch (q.status) {
      case "answered":
        return q.closedBy === "rule" ? (q.feedback ?? "Allowed by a rule") : `Allowed ${q.answer === "always" ? "always" : "once"}${where}`;
      case "declined":
        return q.closedBy === "rule" ? (q.feedback ?? "Denied by a rule") : `Rejected${where}${feedback}`;
      case "timed_out":
        return `No answer in ${waited ?? "time"}: ${q.approval?.fallback === "allow" ? "allowed" : "denied"}`;
      default:
        return `${q.status === "cancelled" ? "Cancelled" : "Expired"}${where}${feedback}`;
    }
  }
  switch (q.status) {
    case "answered":
      return `Answered ${isFlatForm(q.replySchema) ? `(${describeFormAnswer(q.replySchema, q.answer)})` : JSON.stringify(q.answer)}${where}`;
    case "declined":
      return `Declined${where}${feedback}`;
    case "timed_out":
      return `Timed out${q.hasDefault ? ` (default ${JSON.stringify(q.default)})` : ""}`;
    default:
      return `${q.status === "cancelled" ? "Cancelled" : "Expired"}${where}${feedback}`;
  }
}
