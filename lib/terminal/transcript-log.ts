import { askedLine, outcomeLine } from "../protocol/audit";
import type { Message } from "../protocol/entities";
import type { Question } from "../protocol/question";
import { ownerLabel } from "../client/approval";
import { transcript, type SessionState } from "../client/session-store";

/**
 * A terminal keeps what it printed: the transcript is a log that only grows. Each entry is printed
 * once, when it first arrives (a reconnect's snapshot adds only what was missed).
 */
export type LogEntry =
  { key: string; type: "message"; message: Message } | { key: string; type: "question"; question: Question } | { key: string; type: "notice"; text: string; tone: "info" | "error" };

/** How many earlier entries the first screen shows; the rest are counted. */
export const BACKLOG = 40;

/** Stored messages and closed question records not yet printed, in transcript order (streams are drawn live, not logged). */
export function unprinted(state: SessionState, printed: ReadonlySet<string>): LogEntry[] {
  const entries: LogEntry[] = [];
  for (const item of transcript(state)) {
    if (item.type === "message" && !printed.has(`m:${item.message.id}`)) entries.push({ key: `m:${item.message.id}`, type: "message", message: item.message });
    if (item.type === "question" && !printed.has(`q:${item.question.id}`)) entries.push({ key: `q:${item.question.id}`, type: "question", question: item.question });
  }
  return entries;
}

/** The first screen: the latest `max` entries, after a line counting the ones left out. */
export function withBacklog(entries: LogEntry[], max = BACKLOG): LogEntry[] {
  if (entries.length <= max) return entries;
  const hidden = entries.length - max;
  const note: LogEntry = { key: "backlog", type: "notice", tone: "info", text: `… ${hidden} earlier ${hidden === 1 ? "entry" : "entries"} (open the chat in a browser to read them)` };
  return [note, ...entries.slice(-max)];
}

/** Who said it, as the log's left column. */
export function speaker(message: Message): string {
  return message.role === "user" ? "you" : message.role === "agent" ? "agent" : "·";
}

/** A closed question in two parts: what was asked, and how it ended (`viewer`'s own answers "by you", as a browser tab says it). */
export function questionRecord(q: Question, viewer: string | null = null): { asked: string; outcome: string } {
  return { asked: askedLine({ ...q, owner: ownerLabel(q.owner) }), outcome: outcomeLine(q, { viewer }) };
}
