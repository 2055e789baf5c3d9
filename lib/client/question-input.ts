import { isFlatForm } from "../protocol/forms";
import type { JsonValue, Question } from "../protocol/question";

/** Pure rules of the question card: what a key press means and what a typed answer becomes. */

/** A question whose reply schema is a flat form (rt.form, or rt.askJson with such a schema): shown as a form. */
export function isFormQuestion(q: Pick<Question, "kind" | "replySchema">): boolean {
  return q.kind === "question" && q.replySchema !== null && isFlatForm(q.replySchema);
}

/** A reply schema that takes more than a plain string (and is no form) means the text box holds JSON. */
export function wantsJson(q: Pick<Question, "replySchema">): boolean {
  return q.replySchema !== null && q.replySchema.type !== "string";
}

/** Free text as a reply value: trimmed text, or parsed JSON when the question's reply schema asks for it. */
export function textAnswer(q: Pick<Question, "replySchema">, text: string): { ok: true; value: JsonValue } | { ok: false; error: string } {
  const raw = text.trim();
  if (!raw) return { ok: false, error: "The answer is empty." };
  if (!wantsJson(q)) return { ok: true, value: raw };
  try {
    return { ok: true, value: JSON.parse(raw) as JsonValue };
  } catch {
    return { ok: false, error: 'This answer must be JSON, e.g. {"name": "value"} or [1, 2].' };
  }
}

/** Ticked options in the question's order, then the "Other" text when there is one. */
export function multiAnswer(options: string[], checked: string[], other: string): string[] {
  const custom = other.trim();
  return [...options.filter((o) => checked.includes(o)), ...(custom && !options.includes(custom) ? [custom] : [])];
}

/** `reject` opens an approval's feedback field (a second step sends it); `edit` its editor ("Edit and allow"). */
export type KeyAction = { type: "reply"; value: JsonValue } | { type: "toggle"; option: string } | { type: "reject" } | { type: "edit" } | null;

/**
 * Number key n (0-based): a confirm's 1/2 are Yes/No, a choice picks its n-th option, a multi
 * ticks it; an approval's 1/2/3/4 are Allow once, Allow always, Reject and Edit and allow.
 */
export function numberKeyAction(q: Pick<Question, "kind" | "options" | "multi">, n: number): KeyAction {
  if (q.kind === "approval") return n === 0 ? { type: "reply", value: "once" } : n === 1 ? { type: "reply", value: "always" } : n === 2 ? { type: "reject" } : n === 3 ? { type: "edit" } : null;
  if (q.kind === "confirm") return n === 0 ? { type: "reply", value: true } : n === 1 ? { type: "reply", value: false } : null;
  const option = q.options[n];
  if (option === undefined) return null;
  return q.multi ? { type: "toggle", option } : { type: "reply", value: option };
}

/** Whether the card needs a Submit button (free text, multi, or an "Other" field): a tap on a single choice answers at once. */
export function needsSubmit(q: Pick<Question, "kind" | "options" | "multi" | "allowCustom">): boolean {
  if (q.kind === "confirm" || q.kind === "approval") return false;
  return q.options.length === 0 || q.multi || q.allowCustom;
}

/** The keyboard hint in the card's footer. */
export function keyHint(q: Pick<Question, "kind" | "options" | "multi"> & { approval?: { always: unknown[]; edit?: unknown } | null }): string {
  if (q.kind === "confirm") return "Press 1 for Yes, 2 for No";
  if (q.kind === "approval") {
    const always = q.approval?.always.length ?? 0;
    const keys = always === 0 ? "1 allow once · 3 reject" : always === 1 ? "1 allow once · 2 allow always · 3 reject" : "1 allow once · 2 allow always (choose the rule) · 3 reject";
    return q.approval?.edit ? `${keys} · 4 edit` : keys;
  }
  if (q.options.length === 0) return "Enter to send · Shift+Enter for a new line";
  return q.multi ? "Number keys tick options · Enter sends" : "Press a number to choose";
}
