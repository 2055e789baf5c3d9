import { draftToContent, formFields, initialDraft, type FormContent, type FormDraft, type FormErrors, type FormField, type FormSchema } from "../protocol/forms";

/**
 * A form in the terminal, as a pure state machine: one field has the keys at a time. ↑↓ move
 * between fields (Enter moves on, and sends from the last), a text field is typed into, Space
 * ticks a box, ←→ step through a choice; Esc asks for a reason to decline. Each field's error
 * comes from the same validator the browser and the server use. Typing is handled here too, not by
 * a text input per field: keys that arrive together (text, Enter, more text) land where they belong.
 */

export interface FormState {
  mode: "fields" | "reason";
  field: number;
  draft: FormDraft;
  /** Shown after a send was refused (or a field was left with a wrong value). */
  errors: FormErrors;
  reason: string;
}

export type FormKey =
  | { type: "up" }
  | { type: "down" }
  | { type: "left" }
  | { type: "right" }
  | { type: "enter" }
  | { type: "escape" }
  /** Typed characters (pasted text too): added to the text field under the cursor, or to the reason. */
  | { type: "type"; text: string }
  | { type: "backspace" };

export type FormEffect = { type: "reply"; value: FormContent } | { type: "reject"; message: string | null };

export function initialForm(schema: FormSchema, preset?: unknown): FormState {
  return { mode: "fields", field: 0, draft: initialDraft(schema, preset), errors: {}, reason: "" };
}

/** Whether the field under the cursor is typed into (the text field has the keys). */
function typesText(field: FormField | undefined): boolean {
  return field !== undefined && field.kind !== "boolean" && field.kind !== "choice";
}

/** A field's value as the draft holds it, checked alone: its error, or none. */
function checkOne(schema: FormSchema, field: FormField, draft: FormDraft): string | null {
  const result = draftToContent(schema, draft);
  if (result.ok) return null;
  return result.errors[field.name] ?? null;
}

function leaving(schema: FormSchema, state: FormState, to: number): FormState {
  const fields = formFields(schema);
  const here = fields[state.field]!;
  // Leaving a field says what is wrong with it, but an untouched empty one stays quiet until the send.
  const empty = state.draft[here.name] === "" || state.draft[here.name] === undefined;
  const error = empty ? null : checkOne(schema, here, state.draft);
  const errors = { ...state.errors };
  if (error) errors[here.name] = error;
  else delete errors[here.name];
  return { ...state, field: (to + fields.length) % fields.length, errors };
}

function stepChoice(field: FormField, current: string, by: number): string {
  const values = field.choices.map((c) => c.value);
  const at = values.indexOf(current);
  if (at === -1) return by > 0 ? values[0]! : values.at(-1)!;
  return values[(at + by + values.length) % values.length]!;
}

export function pressFormKey(schema: FormSchema, state: FormState, key: FormKey): { state: FormState; effect: FormEffect | null } {
  const stay = (next: FormState) => ({ state: next, effect: null });
  if (state.mode === "reason") {
    if (key.type === "type") return stay({ ...state, reason: state.reason + key.text });
    if (key.type === "backspace") return stay({ ...state, reason: state.reason.slice(0, -1) });
    if (key.type === "escape") return stay({ ...state, mode: "fields" });
    if (key.type === "enter") return { state, effect: { type: "reject", message: state.reason.trim() || null } };
    return stay(state);
  }
  const fields = formFields(schema);
  const field = fields[state.field]!;
  const set = (value: string | boolean) => {
    const draft = { ...state.draft, [field.name]: value };
    const errors = { ...state.errors };
    // An error goes as soon as the value is right again; a new one waits until the field is left.
    if (errors[field.name] && checkOne(schema, field, draft) === null) delete errors[field.name];
    return stay({ ...state, draft, errors });
  };
  switch (key.type) {
    case "up":
      return stay(leaving(schema, state, state.field - 1));
    case "down":
      return stay(leaving(schema, state, state.field + 1));
    case "type":
      if (typesText(field)) return set(String(state.draft[field.name] ?? "") + key.text);
      // Space ticks a box (spaces that came in one chunk each tick it).
      if (field.kind === "boolean" && key.text.trim() === "" && key.text.length % 2 === 1) return set(state.draft[field.name] !== true);
      return stay(state);
    case "backspace":
      return typesText(field) ? set(String(state.draft[field.name] ?? "").slice(0, -1)) : stay(state);
    case "left":
    case "right":
      return field.kind === "choice" ? set(stepChoice(field, String(state.draft[field.name] ?? ""), key.type === "right" ? 1 : -1)) : stay(state);
    case "escape":
      return stay({ ...state, mode: "reason" });
    case "enter": {
      if (state.field < fields.length - 1) return stay(leaving(schema, state, state.field + 1));
      const result = draftToContent(schema, state.draft);
      if (result.ok) return { state: { ...state, errors: {} }, effect: { type: "reply", value: result.content } };
      // The first wrong field takes the cursor.
      const first = fields.findIndex((f) => result.errors[f.name]);
      return stay({ ...state, errors: result.errors, field: first === -1 ? state.field : first });
    }
  }
}

/**
 * What arrived from the terminal as form keys, in order: text and line breaks can come in one
 * chunk ("Lisbon⏎4"), each break an Enter.
 */
export function formKeysOf(
  input: string,
  key: {
    upArrow?: boolean;
    downArrow?: boolean;
    leftArrow?: boolean;
    rightArrow?: boolean;
    return?: boolean;
    escape?: boolean;
    backspace?: boolean;
    delete?: boolean;
    ctrl?: boolean;
    meta?: boolean;
    tab?: boolean;
  },
): FormKey[] {
  if (key.upArrow) return [{ type: "up" }];
  if (key.downArrow) return [{ type: "down" }];
  if (key.leftArrow) return [{ type: "left" }];
  if (key.rightArrow) return [{ type: "right" }];
  if (key.escape) return [{ type: "escape" }];
  if (key.return) return [{ type: "enter" }];
  if (key.backspace || key.delete) return [{ type: "backspace" }];
  if (key.ctrl || key.meta || key.tab || input === "") return [];
  const keys: FormKey[] = [];
  input.split(/\r\n|[\r\n]/).forEach((part, i) => {
    if (i > 0) keys.push({ type: "enter" });
    if (part) keys.push({ type: "type", text: part });
  });
  return keys;
}

/** What a field asks for, from its constraints: "a whole number from 1 to 14", "an email address". */
export function fieldHint(field: FormField): string {
  const parts: string[] = [];
  if (field.kind === "integer" || field.kind === "number") {
    const what = field.kind === "integer" ? "a whole number" : "a number";
    if (field.minimum !== null && field.maximum !== null) parts.push(`${what} from ${field.minimum} to ${field.maximum}`);
    else if (field.minimum !== null) parts.push(`${what}, at least ${field.minimum}`);
    else if (field.maximum !== null) parts.push(`${what}, at most ${field.maximum}`);
    else parts.push(what);
  }
  if (field.format === "email") parts.push("an email address");
  if (field.format === "uri") parts.push("a web address");
  if (field.format === "date") parts.push("a date, YYYY-MM-DD");
  if (field.format === "date-time") parts.push("a date and time, YYYY-MM-DDTHH:MM");
  if (field.minLength !== null && field.maxLength !== null) parts.push(`${field.minLength}–${field.maxLength} characters`);
  else if (field.minLength !== null) parts.push(`at least ${field.minLength} characters`);
  else if (field.maxLength !== null) parts.push(`at most ${field.maxLength} characters`);
  if (field.kind === "choice") parts.push("←→ to choose");
  if (field.kind === "boolean") parts.push("Space to tick");
  if (field.kind === "multi") parts.push(`type any of ${field.choices.map((c) => c.value).join(", ")}, separated by commas`);
  return parts.join(" · ");
}

export function formHint(state: FormState, last: boolean): string {
  if (state.mode === "reason") return "Enter to decline · Esc to go back";
  return `↑↓ fields · Enter ${last ? "sends" : "next"} · Esc decline`;
}
