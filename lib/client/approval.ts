import type { ApprovalSpec, ToolPreview } from "../protocol/permissions";
import type { Question } from "../protocol/question";
import { needsVotes } from "../protocol/team-card";
import { hiddenCount, hiddenWarning } from "./visible-text";

/** The approval card's wording, kept out of React. */

export { approvalTitle, ownerLabel } from "../protocol/question-notification";

/** What an "Allow always" option adds: "Allow shell: `npm test` exactly, in this chat"; null when the approval offers none. */
export function alwaysHint(approval: Pick<ApprovalSpec, "tool" | "always">, which: 0 | 1 = 0): string | null {
  const option = approval.always[which];
  return option ? `Allow ${approval.tool}: ${option.label}, in this chat` : null;
}

/** The question as a card offers it: an approval that needs several people is allowed once as shown or rejected, never always nor edited (the server refuses those). */
export function asOffered(q: Question): Question {
  return needsVotes(q) && q.approval && (q.approval.always.length > 0 || q.approval.edit) ? { ...q, approval: { ...q.approval, always: [], edit: null } } : q;
}

/** The hint under the card's buttons: what Allow always adds, or that it lets the person choose between the two rules. */
export function alwaysChoiceHint(approval: Pick<ApprovalSpec, "tool" | "always">): string | null {
  const [exact, wider] = approval.always;
  if (!exact) return null;
  if (!wider) return alwaysHint(approval, 0);
  return `Allow ${approval.tool} again without asking, in this chat: you choose ${exact.label}, or ${wider.label}`;
}

/** The answer an "Allow always" option sends: the first is exactly this call, the second the wider rule. */
export function alwaysAnswer(which: 0 | 1): "always" | "always_wider" {
  return which === 0 ? "always" : "always_wider";
}

/** How long an "Allow always" rule lasts, as the card offers it. */
export const GRANT_LENGTHS = [
  { id: "good", label: "for good" },
  { id: "hour", label: "for an hour" },
  { id: "today", label: "for today" },
] as const;
export type GrantLength = (typeof GRANT_LENGTHS)[number]["id"];

/** The `until` a reply sends for a grant's length (undefined: for good); "today" ends at the answerer's midnight. */
export function grantUntil(length: GrantLength, now = new Date()): string | undefined {
  if (length === "hour") return new Date(now.getTime() + 3_600_000).toISOString();
  if (length === "today") return new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1).toISOString();
  return undefined;
}

/** Every text the preview shows, for counting what had to be marked. */
function previewTexts(preview: ToolPreview): string[] {
  switch (preview.type) {
    case "command":
      return [preview.command, preview.cwd ?? ""];
    case "diff":
      return [preview.path, preview.diff];
    case "list":
      return preview.items;
    case "text":
      return [preview.text];
  }
}

/** The card's warning when the request holds control, bidirectional or invisible characters: "This command contains 2 …". */
export function hiddenCharactersWarning(approval: Pick<ApprovalSpec, "preview" | "subject">, prompt = ""): string | null {
  const texts = [...previewTexts(approval.preview), ...(previewShowsSubject(approval) ? [] : [approval.subject])];
  // The prompt mostly repeats the subject: counted only when the rest shows nothing.
  const count = texts.reduce((n, t) => n + hiddenCount(t), 0) || hiddenCount(prompt);
  const what = approval.preview.type === "command" ? "This command" : approval.preview.type === "diff" ? "This change" : "This request";
  return hiddenWarning(count, what);
}

/**
 * Whether the prompt shows the subject other than it runs: cut short ("…"), or its lines joined
 * into one. The card then says the full text is in the preview.
 */
export function promptShortened(prompt: string, subject: string): boolean {
  const whole = subject.trim();
  if (whole === "" || prompt.includes(whole)) return false;
  return prompt.includes("…") || prompt.includes(whole.replace(/\s+/g, " "));
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
