import { cardKindOf, type ByCardKind, type CardShape } from "../protocol/card-kinds";
import type { JsonValue, Question } from "../protocol/question";

/** Pure rules of the question card: what a key press means and what a typed answer becomes. */

/** A question whose reply schema is a flat form (rt.form, or rt.askJson with such a schema): shown as a form. */
export function isFormQuestion(q: CardShape): boolean {
  return cardKindOf(q) === "form";
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
 * An approval's number keys, by what they do: the same on every card and every surface (the web
 * card, the terminal), whichever answers a card offers, and numbered in the order the card shows
 * them (Reject last, set apart): a missing answer leaves its number unused, it never moves another.
 */
export const APPROVAL_KEYS = { once: 1, always: 2, edit: 3, reject: 4 } as const;
export type ApprovalAnswer = keyof typeof APPROVAL_KEYS;

const APPROVAL_ACTIONS: Record<ApprovalAnswer, Exclude<KeyAction, null>> = {
  once: { type: "reply", value: "once" },
  always: { type: "reply", value: "always" },
  edit: { type: "edit" },
  reject: { type: "reject" },
};

/** The approval answer a number key (1-based) gives, or null for a number no answer has. */
export function approvalAnswerOfKey(key: number): ApprovalAnswer | null {
  return (Object.keys(APPROVAL_KEYS) as ApprovalAnswer[]).find((a) => APPROVAL_KEYS[a] === key) ?? null;
}

/**
 * Number key n (0-based): a confirm's 1/2 are Yes/No, a choice picks its n-th option, a multi
 * ticks it; an approval's are APPROVAL_KEYS (1 Allow once, 2 Allow always, 3 Edit and allow, 4 Reject).
 */
export function numberKeyAction(q: CardShape, n: number): KeyAction {
  return KEY_ACTIONS[cardKindOf(q)](q, n);
}

const optionAt = (q: CardShape, n: number) => q.options[n];
const KEY_ACTIONS: ByCardKind<(q: CardShape, n: number) => KeyAction> = {
  approval: (_q, n) => {
    const answer = approvalAnswerOfKey(n + 1);
    return answer ? APPROVAL_ACTIONS[answer] : null;
  },
  confirm: (_q, n) => (n === 0 ? { type: "reply", value: true } : n === 1 ? { type: "reply", value: false } : null),
  choice: (q, n) => {
    const option = optionAt(q, n);
    return option === undefined ? null : { type: "reply", value: option };
  },
  multi_choice: (q, n) => {
    const option = optionAt(q, n);
    return option === undefined ? null : { type: "toggle", option };
  },
  // Number keys are the text's own; a form's fields take them.
  text: () => null,
  form: () => null,
};

/** Whether the card needs a Submit button (free text, multi, or an "Other" field): a tap on a single choice answers at once. */
export function needsSubmit(q: CardShape & Pick<Question, "allowCustom">): boolean {
  const submits: ByCardKind<boolean> = { confirm: false, approval: false, choice: q.allowCustom, multi_choice: true, text: true, form: true };
  return submits[cardKindOf(q)];
}

type HintShape = CardShape & { approval?: { always: unknown[]; edit?: unknown } | null };

/** The keyboard hint in the card's footer. */
export function keyHint(q: HintShape): string {
  return KEY_HINTS[cardKindOf(q)](q);
}

const KEY_HINTS: ByCardKind<(q: HintShape) => string> = {
  confirm: () => "Press 1 for Yes, 2 for No",
  approval: (q) => {
    const always = q.approval?.always.length ?? 0;
    const said: Record<ApprovalAnswer, string | null> = {
      once: "allow once",
      always: always === 0 ? null : always === 1 ? "allow always" : "allow always (choose the rule)",
      edit: q.approval?.edit ? "edit" : null,
      reject: "reject",
    };
    return (Object.keys(APPROVAL_KEYS) as ApprovalAnswer[]).flatMap((a) => (said[a] ? [`${APPROVAL_KEYS[a]} ${said[a]}`] : [])).join(" · ");
  },
  text: () => "Enter to send · Shift+Enter for a new line",
  form: () => "Enter to send · Shift+Enter for a new line",
  choice: () => "Press a number to choose",
  multi_choice: () => "Number keys tick options · Enter sends",
};
