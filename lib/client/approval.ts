import type { ApprovalSpec } from "../protocol/permissions";

/** The approval card's wording, kept out of React. */

/** A function's (or model's) name as a person reads it: "order-coffee" → "Order coffee", "writeReport" → "Write report". */
export function ownerLabel(owner: string): string {
  const words = owner
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s\-_./:]+/)
    .filter(Boolean);
  if (words.length === 0) return owner;
  const text = words.map((w) => (/^[A-Z0-9]+$/.test(w) && w.length > 1 ? w : w.toLowerCase())).join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "Coffee helper wants to run shell". */
export function approvalTitle(owner: string, tool: string): string {
  return `${ownerLabel(owner)} wants to run ${tool}`;
}

/** What an "Allow always" option adds: "Allow shell: `npm test` exactly, in this chat"; null when the approval offers none. */
export function alwaysHint(approval: Pick<ApprovalSpec, "tool" | "always">, which: 0 | 1 = 0): string | null {
  const option = approval.always[which];
  return option ? `Allow ${approval.tool}: ${option.label}, in this chat` : null;
}

/** The label of the subject line: what the rules match. */
export function subjectLabel(kind: ApprovalSpec["subjectKind"]): string {
  return kind === "path" ? "Path" : kind === "command" ? "Command" : "Subject";
}

/** Whether the preview already shows the subject (a diff's path, a command): then the card needs no subject line. */
export function previewShowsSubject(approval: Pick<ApprovalSpec, "preview" | "subject">): boolean {
  const { preview, subject } = approval;
  const same = (text: string) => text.trim() === subject.trim();
  return (preview.type === "diff" && same(preview.path)) || (preview.type === "command" && same(preview.command));
}

/** What happens when nobody answers in time: "then denied". */
export function fallbackText(fallback: ApprovalSpec["fallback"]): string {
  return fallback === "allow" ? "then allowed" : "then denied";
}

/** A prompt's `inline code` spans ("Run `npm test`?"), for the card to set in monospace; an unpaired backtick stays text. */
export function inlineCode(text: string): Array<{ code: boolean; text: string }> {
  const parts: Array<{ code: boolean; text: string }> = [];
  const re = /`([^`]+)`/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) parts.push({ code: false, text: text.slice(last, m.index) });
    parts.push({ code: true, text: m[1]! });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ code: false, text: text.slice(last) });
  return parts;
}

/** Cuts long text for one line, keeping its start. */
export function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
