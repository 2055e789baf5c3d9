import { askedLine, describeVia, outcomeLine, type AuditEntry, type AuditPage } from "../protocol/audit";
import { clip } from "../protocol/bounded-text";
import type { Message, Run, Session } from "../protocol/entities";
import type { Receipt, ReplyReceipt, StopReceipt } from "../protocol/commands";
import type { Question } from "../protocol/question";
import type { WebhookDelivery } from "../protocol/webhooks";
import { exampleAnswer, otherAnswers } from "./example-answer";

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function formatSessions(sessions: Session[]): string {
  if (sessions.length === 0) return "No sessions.";
  return sessions.map((s) => `${s.id}  ${s.pendingCount > 0 ? `[${s.pendingCount} pending]  ` : ""}${s.title}`).join("\n");
}

export function answerCommand(q: Question): string {
  return `npx parley send-input ${q.runId} ${q.pendingId} --value-json ${shellQuote(exampleAnswer(q))} --digest ${q.targetDigest}`;
}

function describeQuestion(q: Question): string[] {
  const lines = [`${q.pendingId}  ${q.kind}: ${q.prompt}`, `    run ${q.runId}${q.rootRunId !== q.runId ? ` (child of ${q.rootRunId})` : ""}, asked by ${q.owner}`];
  if (q.options.length) lines.push(`    options: ${q.options.join(" | ")}${q.multi ? " (several)" : ""}${q.allowCustom ? " or free text" : ""}`);
  if (q.detail) lines.push(...q.detail.split("\n").map((l) => `    > ${l}`));
  if (q.replySchema) lines.push(`    reply schema: ${JSON.stringify(q.replySchema)}`);
  lines.push(`    expires: ${q.expiresAt ?? "never"}${q.hasDefault ? `, then defaults to ${JSON.stringify(q.default)}` : ""}`);
  lines.push(`    digest: ${q.targetDigest}`);
  lines.push(`    answer: ${answerCommand(q)}`);
  const others = otherAnswers(q);
  if (others) lines.push(`      (--value-json takes ${others})`);
  return lines;
}

export function formatPending(questions: Question[]): string {
  if (questions.length === 0) return "No pending questions.";
  return questions.flatMap(describeQuestion).join("\n");
}

export function formatInspect({
  run,
  journal,
  pendingQuestions,
  questions = [],
  deliveries = [],
  messages,
}: {
  run: Run;
  journal: Array<{ seq: number; kind: string; name: string }>;
  pendingQuestions: Question[];
  questions?: Question[];
  deliveries?: WebhookDelivery[];
  messages: Message[];
}): string {
  const lines = [
    `run ${run.id}  ${run.functionName}  ${run.status}`,
    `  session ${run.sessionId}${run.parentRunId ? `, child of ${run.parentRunId}` : ""}`,
    `  started ${run.createdAt}${run.finishedAt ? `, finished ${run.finishedAt}` : ""}; ${run.attempts} attempt(s), ${(run.activeMs / 1000).toFixed(1)} s active`,
    `  policy: ${run.policy.maxRequests} questions, ${run.policy.maxPromptChars} prompt chars, ${run.policy.maxReplyBytes} reply bytes, ${run.policy.maxActiveMs / 1000} s of execution`,
  ];
  if (run.error) lines.push(`  error: ${run.error}`);
  if (run.result !== null && run.result !== undefined) lines.push(`  result: ${JSON.stringify(run.result)}`);
  lines.push(`journal (${journal.length}):`, ...journal.map((e) => `  ${String(e.seq).padStart(3)}  ${e.kind.padEnd(8)} ${e.name}`));
  if (messages.length) lines.push(`messages (${messages.length}):`, ...messages.map((m) => `  ${m.role}: ${m.text.split("\n")[0]}`));
  const asked = questions.filter((q) => q.status !== "pending");
  if (asked.length)
    lines.push(
      `answered (${asked.length}):`,
      ...asked.map(
        (q) => `  ${String(q.seq).padStart(3)}  ${askedLine(q)}
       ${outcomeLine(q)}${q.closedAt ? ` (${q.closedAt})` : ""}`,
      ),
    );
  if (deliveries.length) lines.push(`webhooks (${deliveries.length}):`, ...deliveries.map((d) => `  ${d.id} to ${d.host}: ${deliveryLine(d)}`));
  lines.push(pendingQuestions.length ? `pending questions (${pendingQuestions.length}):` : "no pending questions");
  lines.push(...pendingQuestions.flatMap(describeQuestion).map((l) => `  ${l}`));
  return lines.join("\n");
}

/** Where a callback's delivery stands, in a line. */
export function deliveryLine(d: WebhookDelivery): string {
  const lastError = d.lastError ? `; last error: ${d.lastError}` : "";
  if (d.status === "delivered") return `delivered after ${d.attempts} attempt(s)${d.deliveredAt ? ` (${d.deliveredAt})` : ""}`;
  if (d.status === "failed") return `failed after ${d.attempts} attempt(s), given up${lastError}`;
  return `pending, ${d.attempts} attempt(s) so far${d.nextAttemptAt ? `, next at ${d.nextAttemptAt}` : ""}${lastError}`;
}

export function formatReceipt(receipt: Receipt | ReplyReceipt | StopReceipt): string {
  const lines = [`${receipt.kind} ${receipt.commandId}: ${receipt.record_state}, ${receipt.apply_state}`];
  if ("outcome" in receipt) lines.push(`outcome: ${receipt.outcome}${"question" in receipt && receipt.question ? ` (question is ${receipt.question.status})` : ""}`);
  if (receipt.runId) lines.push(`run: ${receipt.runId}`);
  if (receipt.error) lines.push(`error (${receipt.error.code}): ${receipt.error.message}`);
  if (receipt.apply_state === "queued") lines.push("The server applies it when it runs (it checks about every second).");
  return lines.join("\n");
}

/** "2026-12-05 10:02:11" in the machine's time zone (or the one given). */
export function auditTime(iso: string, timeZone?: string): string {
  const format = new Intl.DateTimeFormat("sv-SE", { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false, timeZone });
  return format.format(new Date(iso));
}

/** An entry's lines: when it closed, what was asked and how it ended; then, indented, an edited input and the votes. */
function auditLines(e: AuditEntry, { session, timeZone }: { session: boolean; timeZone?: string }): string[] {
  const lines = [`${auditTime(e.closedAt, timeZone)}  ${e.asked}  →  ${e.outcome}${session ? `  [${e.sessionTitle}]` : ""}`];
  if (e.editedInput) lines.push(`    input edited: ${clip(JSON.stringify(e.editedInput), 300)}${e.originalInput ? ` (asked with ${clip(JSON.stringify(e.originalInput), 300)})` : ""}`);
  for (const v of e.votes) {
    const via = describeVia(v.surface);
    lines.push(`    ${v.name} voted ${v.decision === "allow" ? "to allow" : "to reject"}${via ? `, ${via}` : ""} (${auditTime(v.at, timeZone)})${v.feedback ? `: ${v.feedback}` : ""}`);
  }
  return lines;
}

/**
 * `parley audit`: one line per settled question, oldest first, and how to read on. Across
 * sessions each line ends with its session's title.
 */
export function formatAudit(page: AuditPage, { session, limit, timeZone }: { session?: string; limit?: string; timeZone?: string } = {}): string {
  if (page.entries.length === 0) return "No settled questions.";
  const lines = page.entries.flatMap((e) => auditLines(e, { session: session === undefined, timeZone }));
  if (page.next) lines.push(`More: parley audit${session === undefined ? "" : ` --session ${shellQuote(session)}`}${limit === undefined ? "" : ` --limit ${limit}`} --after ${page.next}`);
  return lines.join("\n");
}
