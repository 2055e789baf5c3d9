import type { JsonValue, Question } from "../protocol/question";
import { alwaysHint } from "../client/approval";
import { visibleString } from "../client/visible-text";
import { APPROVAL_KEYS, multiAnswer, textAnswer } from "../client/question-input";
import { cardKindOf, type ByCardKind } from "../protocol/card-kinds";

/**
 * The terminal's question prompt as a pure state machine: which row the cursor is on, what is
 * ticked, and whether a text field (free text, "Other", a reason to decline) has the keys.
 * The ink component only turns key presses into `PromptKey`s and carries out the effects.
 */

type Q = Pick<Question, "kind" | "options" | "multi" | "allowCustom" | "replySchema" | "approval">;

/** `choose`: rows and shortcut keys; `text`: a typed answer; `reason`: the optional reason for declining. */
export type PromptMode = "choose" | "text" | "reason";

export interface PromptState {
  mode: PromptMode;
  /** Where Esc in `reason` goes back to. */
  back: Exclude<PromptMode, "reason">;
  cursor: number;
  ticked: string[];
  /** The typed answer (free text, or "Other"). */
  text: string;
  reason: string;
  error: string | null;
}

export type PromptKey =
  | { type: "up" }
  | { type: "down" }
  | { type: "space" }
  | { type: "enter" }
  | { type: "escape" }
  /** A printable key in `choose` mode: digits select rows (a multi's tick), y/n/a select a confirm's and an approval's answers; Enter sends. */
  | { type: "char"; char: string }
  /** The text field's new value (`text` or `reason`, whichever is open). */
  | { type: "edit"; value: string };

export type PromptEffect = { type: "reply"; value: JsonValue } | { type: "reject"; message: string | null };

export interface PromptRow {
  label: string;
  hint?: string;
  /** The number key that selects it, shown before it: its place (up to 9), an approval's answer's key as the web card has it; null for none. */
  key: number | null;
  /** What Enter on this row does. */
  act: { type: "reply"; value: JsonValue } | { type: "toggle"; option: string } | { type: "other" } | { type: "reject" };
}

/**
 * The rows of `choose` mode: Yes/No, the approval's answers, or the options (and "Other…"). An
 * approval's keys are the web card's (1 once, 2 always, 4 reject; its 3, Edit and allow, is the
 * browser's only), so a key does the same wherever it is pressed.
 */
export function promptRows(q: Q): PromptRow[] {
  return ROWS[cardKindOf(q)](q);
}

/** The options (and "Other…"), numbered by their place up to 9: a choice's, a multi's; a text's or a form's are none. */
function optionRows(q: Q): PromptRow[] {
  const rows: PromptRow[] = q.options.map((option) => ({ label: option, key: null, act: q.multi ? { type: "toggle", option } : { type: "reply", value: option } }));
  if (q.allowCustom) rows.push({ label: "Other…", hint: "type your own answer", key: null, act: { type: "other" } });
  return rows.map((row, i) => ({ ...row, key: i < 9 ? i + 1 : null }));
}

const ROWS: ByCardKind<(q: Q) => PromptRow[]> = {
  confirm: () => [
    { label: "Yes", key: 1, act: { type: "reply", value: true } },
    { label: "No", key: 2, act: { type: "reply", value: false } },
  ],
  approval: (q) => [
    { label: "Allow once", key: APPROVAL_KEYS.once, act: { type: "reply", value: "once" } },
    // Exactly this call (the first option); a wider rule is chosen in the browser's card.
    ...(q.approval?.always.length ? [{ label: "Allow always", hint: visibleString(alwaysHint(q.approval, 0)!), key: APPROVAL_KEYS.always, act: { type: "reply", value: "always" } } as PromptRow] : []),
    { label: "Reject", hint: "optionally say why", key: APPROVAL_KEYS.reject, act: { type: "reject" } },
  ],
  choice: optionRows,
  multi_choice: optionRows,
  text: optionRows,
  form: optionRows,
};

export function initialPrompt(q: Q): PromptState {
  const mode = promptRows(q).length === 0 ? "text" : "choose";
  return { mode, back: mode, cursor: 0, ticked: [], text: "", reason: "", error: null };
}

interface Step {
  state: PromptState;
  effect: PromptEffect | null;
}

const stay = (state: PromptState): Step => ({ state, effect: null });
const toggle = (ticked: string[], option: string) => (ticked.includes(option) ? ticked.filter((o) => o !== option) : [...ticked, option]);

function act(q: Q, state: PromptState, row: PromptRow, index: number): Step {
  const at = { ...state, cursor: index, error: null };
  switch (row.act.type) {
    case "reply":
      return { state: at, effect: { type: "reply", value: row.act.value } };
    case "toggle":
      return stay({ ...at, ticked: toggle(state.ticked, row.act.option) });
    case "other":
      return stay({ ...at, mode: "text", back: "text" });
    case "reject":
      return stay({ ...at, mode: "reason", back: "choose" });
  }
}

/** A multi's answer: the ticked options and any "Other" text, in the question's order. */
function submitMulti(q: Q, state: PromptState): Step {
  const value = multiAnswer(q.options, state.ticked, state.text);
  if (value.length === 0) return stay({ ...state, error: "Tick at least one option (Space), then press Enter." });
  return { state: { ...state, error: null }, effect: { type: "reply", value } };
}

function chooseKey(q: Q, state: PromptState, key: PromptKey): Step {
  const rows = promptRows(q);
  const row = rows[state.cursor];
  switch (key.type) {
    case "up":
      return stay({ ...state, cursor: (state.cursor - 1 + rows.length) % rows.length, error: null });
    case "down":
      return stay({ ...state, cursor: (state.cursor + 1) % rows.length, error: null });
    case "space":
      return row && (row.act.type === "toggle" || row.act.type === "other") ? act(q, state, row, state.cursor) : stay(state);
    case "enter":
      if (!row) return stay(state);
      // In a multi, Enter sends what is ticked; only the "Other…" row opens its field.
      if (q.multi && row.act.type !== "other") return submitMulti(q, state);
      return act(q, state, row, state.cursor);
    case "escape":
      return stay({ ...state, mode: "reason", back: "choose", error: null });
    case "char": {
      // A key selects; only Enter sends (a key meant for this question never answers the next one).
      const select = (index: number) => {
        const at = rows[index];
        if (!at) return stay(state);
        // A multi's number key ticks its option, as the browser's card does.
        return at.act.type === "toggle" ? act(q, state, at, index) : stay({ ...state, cursor: index, error: null });
      };
      const char = key.char.toLowerCase();
      // A number selects the row it is shown before: Yes/No, an approval's answer, an option or "Other…".
      if (/^[1-9]$/.test(char)) return select(rows.findIndex((r) => r.key === Number(char)));
      if (q.kind === "confirm" && (char === "y" || char === "n")) return select(char === "y" ? 0 : 1);
      if (q.kind === "approval") {
        // By what the row does, not where it sits: without Allow always, `a` does nothing and `n` is the second row.
        const wanted = { y: "once", a: "always", n: "reject" }[char];
        const index = rows.findIndex((r) => (r.act.type === "reject" ? "reject" : r.act.type === "reply" ? r.act.value : null) === wanted);
        if (index >= 0) return select(index);
      }
      return stay(state);
    }
    case "edit":
      return stay(state);
  }
}

function textKey(q: Q, state: PromptState, key: PromptKey): Step {
  switch (key.type) {
    case "edit":
      return stay({ ...state, text: key.value, error: null });
    case "escape":
      // Back to the options when "Other…" opened the field; a free-text question's Esc declines.
      return promptRows(q).length > 0 ? stay({ ...state, mode: "choose", error: null }) : stay({ ...state, mode: "reason", back: "text", error: null });
    case "enter": {
      if (q.multi) return submitMulti(q, state);
      if (q.options.length > 0) {
        const custom = state.text.trim();
        return custom ? { state: { ...state, error: null }, effect: { type: "reply", value: custom } } : stay({ ...state, error: "Type an answer, or press Esc to go back to the options." });
      }
      const parsed = textAnswer(q, state.text);
      return parsed.ok ? { state: { ...state, error: null }, effect: { type: "reply", value: parsed.value } } : stay({ ...state, error: parsed.error });
    }
    default:
      return stay(state);
  }
}

function reasonKey(state: PromptState, key: PromptKey): Step {
  switch (key.type) {
    case "edit":
      return stay({ ...state, reason: key.value });
    case "escape":
      return stay({ ...state, mode: state.back, error: null });
    case "enter":
      return { state, effect: { type: "reject", message: state.reason.trim() || null } };
    default:
      return stay(state);
  }
}

/** One key press: the prompt's next state, and the reply or decline to send, if any. */
export function pressKey(q: Q, state: PromptState, key: PromptKey): Step {
  if (state.mode === "text") return textKey(q, state, key);
  if (state.mode === "reason") return reasonKey(state, key);
  return chooseKey(q, state, key);
}

/** The footer's key hint for the current mode. */
export function promptHint(q: Q, state: PromptState): string {
  if (state.mode === "reason") return q.kind === "approval" ? "Enter to reject · Esc to go back" : "Enter to decline · Esc to go back";
  if (state.mode === "text") return promptRows(q).length > 0 ? "Enter to send · Esc back to the options" : "Enter to send · Esc to decline";
  return CHOOSE_HINTS[cardKindOf(q)](q);
}

const chooseHint = () => "↑↓ or 1-9 choose · Enter send · Esc decline";
const CHOOSE_HINTS: ByCardKind<(q: Q) => string> = {
  confirm: () => "y yes · n no · ↑↓ choose · Enter send · Esc decline",
  approval: (q) => (q.approval?.always.length ? "y once · a always · n reject · ↑↓ choose · Enter send" : "y once · n reject · ↑↓ choose · Enter send"),
  multi_choice: () => "↑↓ move · Space or 1-9 tick · Enter send · Esc decline",
  choice: chooseHint,
  // Only with "Other…" as their one row.
  text: chooseHint,
  form: chooseHint,
};
