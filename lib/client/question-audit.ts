import type { Question } from "../protocol/question";
import type { NameOf } from "../protocol/display-names";
import { allowedLine, describeVia, formatDuration, ruleDecisionLine, ruleOf, settledVia } from "../protocol/audit";

export { describeVia, formatDuration, ruleOf };
import { clip, ownerLabel } from "./approval";
import { describeClosed } from "./session-store";
import { clockTime, fullTime, sameDay, shortDate, type TimeOptions } from "./timestamps";

/**
 * The audit line of a closed question or approval in the transcript: what was asked, how it
 * ended, from where and when. Pure, so the wording is tested without a browser.
 */
export interface QuestionAudit {
  /** Who asked, as a person reads it ("Order coffee"). */
  owner: string;
  /** For an approval: the tool and its subject (clipped); null for other questions. */
  tool: string | null;
  subject: string | null;
  /** What was asked in one line: the prompt, or "write_file docs/notes.md" for an approval. */
  asked: string;
  /** "Allowed once", "Rejected: use docs/drafts", "No answer in 30 minutes, denied", "Answered: staging" … */
  outcome: string;
  /** How the outcome reads at a glance. */
  tone: "allowed" | "denied" | "timeout" | "neutral";
  /** Who settled it and from where: "by alice, in a browser tab", "by you, over REST", "in a browser tab" (no person recorded) …; null when the outcome already says it. */
  via: string | null;
  /** The close time as a clock time ("14:05"), with the date when not today; null when unknown. */
  when: string | null;
  /** The full date and time for a tooltip. */
  whenFull: string | null;
}

export interface AuditOptions extends TimeOptions {
  now?: Date;
  /** The person reading: their own answers read "by you". */
  viewer?: string | null;
  /** Everyone else by their display name. */
  nameOf?: NameOf;
}

const sentence = (text: string) => text.trim().replace(/\.$/, "");
const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function approvalOutcome(q: Question): { outcome: string; tone: QuestionAudit["tone"]; viaShown: boolean } {
  const fallback = q.approval?.fallback ?? "deny";
  if (q.closedBy === "rule" && (q.status === "answered" || q.status === "declined")) {
    const allowed = q.status === "answered";
    const rule = ruleOf(q.feedback);
    // Another reason a rule-less decision gave (a tool that is not dangerous, a run nobody can answer).
    if (!rule && q.feedback) return { outcome: sentence(q.feedback), tone: allowed ? "allowed" : "denied", viaShown: true };
    return { outcome: ruleDecisionLine(allowed, rule), tone: allowed ? "allowed" : "denied", viaShown: false };
  }
  if (q.status === "timed_out" || (q.closedBy === "timeout" && (q.status === "answered" || q.status === "declined"))) {
    const waited = q.expiresAt ? `in ${formatDuration(Date.parse(q.expiresAt) - Date.parse(q.createdAt))}` : "in time";
    const allowed = q.status === "answered" || (q.status === "timed_out" && fallback === "allow");
    return { outcome: `No answer ${waited}, ${allowed ? "allowed" : "denied"}`, tone: "timeout", viaShown: false };
  }
  switch (q.status) {
    case "answered":
      return { outcome: allowedLine(q), tone: "allowed", viaShown: true };
    case "declined":
      return { outcome: q.feedback ? `Rejected: ${clip(q.feedback, 300)}` : "Rejected", tone: "denied", viaShown: true };
    case "cancelled":
      return { outcome: "Cancelled", tone: "neutral", viaShown: true };
    case "expired":
      return { outcome: "Expired", tone: "neutral", viaShown: true };
    case "pending":
      return { outcome: "Waiting for an answer", tone: "neutral", viaShown: false };
  }
}

function questionOutcome(q: Question): { outcome: string; tone: QuestionAudit["tone"]; viaShown: boolean } {
  const tone: QuestionAudit["tone"] = q.status === "answered" ? "allowed" : q.status === "timed_out" ? "timeout" : q.status === "declined" ? "denied" : "neutral";
  return { outcome: capitalise(describeClosed(q)), tone, viaShown: q.status !== "timed_out" && q.status !== "pending" };
}

/** "2:05 PM" today, "Jan 3, 2:05 PM" another day (written by ./timestamps, like every time shown). */
export function formatWhen(iso: string | null, { now = new Date(), locale, timeZone }: AuditOptions = {}): { short: string; full: string } | null {
  if (!iso) return null;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return null;
  const opts = { locale, timeZone };
  const time = clockTime(at, opts);
  return { short: sameDay(at, now, opts) ? time : `${shortDate(at, opts)}, ${time}`, full: fullTime(at, opts) };
}

export function auditOf(q: Question, options: AuditOptions = {}): QuestionAudit {
  const approval = q.kind === "approval" ? q.approval : null;
  const { outcome, tone, viaShown } = approval ? approvalOutcome(q) : questionOutcome(q);
  const subject = approval ? clip(approval.subject) : null;
  const when = formatWhen(q.closedAt, options);
  return {
    owner: ownerLabel(q.owner),
    tool: approval?.tool ?? null,
    subject,
    asked: approval ? `${approval.tool} ${subject}`.trim() : q.prompt,
    outcome,
    tone,
    via: viaShown ? settledVia(q, { viewer: options.viewer, nameOf: options.nameOf }) : null,
    when: when?.short ?? null,
    whenFull: when?.full ?? null,
  };
}
