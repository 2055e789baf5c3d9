import { z } from "zod";
import { describeZodError } from "./errors";

/**
 * Forms: a question whose reply schema is a flat object of primitive fields, in the shape of MCP
 * elicitation's restricted schema. The one definition of what a form is and what each field
 * accepts, shared by the worker (`rt.form` checks its schema), the server (replies are checked
 * field by field, with errors a person can read) and the browser (the form card checks before
 * sending and shows each error beside its field).
 *
 * A field is one of:
 * - string: `title`, `description`, `minLength`, `maxLength`, `format` (email, uri, date, date-time), `default`
 * - number / integer: `minimum`, `maximum`, `default`
 * - boolean: `default`
 * - enum: a string with `enum` (and optional `enumNames`), or `oneOf: [{ const, title }]`;
 *   `type: "string"` may be left out
 * - multi-select: `type: "array"` with `items: { type: "string", enum }` or
 *   `items: { anyOf: [{ const, title }] }`, `minItems`, `maxItems`, a list as `default`
 * and the form lists the `required` ones.
 */

export const FORM_FORMATS = ["email", "uri", "date", "date-time"] as const;
export type FormFormat = (typeof FORM_FORMATS)[number];

export const MAX_FORM_FIELDS = 30;
const MAX_ENUM_VALUES = 100;

const text = (max: number) => z.string().max(max);
const count = z.number().int().min(0).max(1_000_000);

const ChoiceOptionSchema = z.strictObject({ const: text(200).min(1), title: text(200).optional() });

/** A multi-select's `items`: the choices, untitled (`enum`) or titled (`anyOf`). */
const MultiItemsSchema = z.strictObject({
  type: z.literal("string").optional(),
  enum: z.array(text(200).min(1)).min(1).max(MAX_ENUM_VALUES).optional(),
  anyOf: z.array(ChoiceOptionSchema).min(1).max(MAX_ENUM_VALUES).optional(),
});

/** One field as a schema says it; the checks that tie its keywords together are in `fieldProblems`. */
export const FormFieldSchema = z
  .strictObject({
    type: z.enum(["string", "number", "integer", "boolean", "array"]).optional(),
    title: text(200).optional(),
    description: text(2_000).optional(),
    minLength: count.optional(),
    maxLength: count.optional(),
    format: z.enum(FORM_FORMATS, { error: `format must be one of ${FORM_FORMATS.join(", ")}` }).optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    enum: z.array(text(200).min(1)).min(1).max(MAX_ENUM_VALUES).optional(),
    enumNames: z.array(text(200)).max(MAX_ENUM_VALUES).optional(),
    oneOf: z.array(ChoiceOptionSchema).min(1).max(MAX_ENUM_VALUES).optional(),
    items: MultiItemsSchema.optional(),
    minItems: count.optional(),
    maxItems: count.optional(),
    default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).optional(),
  })
  .superRefine((field, ctx) => {
    for (const message of fieldProblems(field)) ctx.addIssue({ code: "custom", message });
  });
export type FormFieldInput = z.infer<typeof FormFieldSchema>;

/** A form's schema: a flat object of fields, the required ones named. */
export const FormSchemaSchema = z
  .strictObject({
    $schema: z.string().optional(),
    type: z.literal("object", { error: 'a form is an object schema: type "object"' }),
    title: text(200).optional(),
    description: text(2_000).optional(),
    properties: z
      .record(
        z
          .string()
          .min(1)
          .max(100)
          .refine((name) => name !== "__proto__", "a field may not be named __proto__"),
        FormFieldSchema,
      )
      .refine((p) => Object.keys(p).length >= 1, "a form needs at least one field")
      .refine((p) => Object.keys(p).length <= MAX_FORM_FIELDS, `a form has at most ${MAX_FORM_FIELDS} fields`),
    required: z.array(z.string()).optional(),
    additionalProperties: z.literal(false).optional(),
  })
  .superRefine((form, ctx) => {
    for (const name of form.required ?? []) {
      if (!Object.hasOwn(form.properties, name)) ctx.addIssue({ code: "custom", path: ["required"], message: `"${name}" is required but is not a field` });
    }
    if (new Set(form.required ?? []).size !== (form.required ?? []).length) ctx.addIssue({ code: "custom", path: ["required"], message: "a field is named twice" });
  });
export type FormSchema = z.infer<typeof FormSchemaSchema>;

/** A form's answer: each field's value by name (fields left empty are absent). */
export type FormContent = Record<string, string | number | boolean | string[]>;

/** What a field is, resolved from its keywords. */
export type FieldKind = "text" | "number" | "integer" | "boolean" | "choice" | "multi";

export interface FormField {
  name: string;
  kind: FieldKind;
  /** The label a person reads: its title, else its name made readable. */
  label: string;
  description: string | null;
  required: boolean;
  format: FormFormat | null;
  minLength: number | null;
  maxLength: number | null;
  minimum: number | null;
  maximum: number | null;
  /** How many a multi-select takes. */
  minItems: number | null;
  maxItems: number | null;
  /** A choice's (or a multi-select's) values with the titles to show. */
  choices: Array<{ value: string; title: string }>;
  default: string | number | boolean | string[] | undefined;
}

const TEXT_KEYS = ["minLength", "maxLength", "format"] as const;
const NUMBER_KEYS = ["minimum", "maximum"] as const;
const MULTI_KEYS = ["items", "minItems", "maxItems"] as const;

function kindOf(field: FormFieldInput): FieldKind {
  if (field.type === "array") return "multi";
  if (field.enum || field.oneOf) return "choice";
  if (field.type === "number" || field.type === "integer" || field.type === "boolean") return field.type;
  return "text";
}

/** What is wrong with a field's combination of keywords (each a phrase, without the field's name). */
function fieldProblems(field: FormFieldInput): string[] {
  const problems: string[] = [];
  if (field.enum && field.oneOf) problems.push("use enum or oneOf, not both");
  const choice = field.enum !== undefined || field.oneOf !== undefined;
  if (field.type === undefined && !choice) problems.push('needs a type: "string", "number", "integer" or "boolean"');
  if (choice && field.type !== undefined && field.type !== "string" && field.type !== "array") problems.push('an enum is a list of strings: type "string"');
  if (field.type === "array") {
    if (choice) problems.push("a multi-select lists its choices in items (enum or anyOf)");
    if (!field.items || (field.items.enum === undefined) === (field.items.anyOf === undefined)) problems.push("a multi-select needs items with enum or anyOf (one of them)");
    const values = field.items?.enum ?? field.items?.anyOf?.map((o) => o.const) ?? [];
    if (new Set(values).size !== values.length) problems.push("a choice is listed twice");
    if (field.minItems !== undefined && field.maxItems !== undefined && field.minItems > field.maxItems) problems.push("minItems is above maxItems");
  }
  if (field.enumNames && !field.enum) problems.push("enumNames needs enum");
  if (field.enumNames && field.enum && field.enumNames.length !== field.enum.length) problems.push("enumNames must name every enum value, in order");
  const values = field.enum ?? field.oneOf?.map((o) => o.const) ?? [];
  if (new Set(values).size !== values.length) problems.push("a choice is listed twice");
  const kind = kindOf(field);
  const misplaced = [
    ...(kind === "text" ? [] : TEXT_KEYS.filter((k) => field[k] !== undefined)),
    ...(kind === "number" || kind === "integer" ? [] : NUMBER_KEYS.filter((k) => field[k] !== undefined)),
    ...(kind === "multi" ? [] : MULTI_KEYS.filter((k) => field[k] !== undefined)),
  ];
  const kindName = kind === "choice" ? "a choice" : kind === "multi" ? "a multi-select" : `a ${kind} field`;
  for (const key of misplaced) problems.push(`${key} does not apply to ${kindName}`);
  if (field.minLength !== undefined && field.maxLength !== undefined && field.minLength > field.maxLength) problems.push("minLength is above maxLength");
  if (field.minimum !== undefined && field.maximum !== undefined && field.minimum > field.maximum) problems.push("minimum is above maximum");
  if (kind === "integer" && ((field.minimum !== undefined && !Number.isInteger(field.minimum)) || (field.maximum !== undefined && !Number.isInteger(field.maximum)))) {
    problems.push("an integer field's minimum and maximum are whole numbers");
  }
  if (field.default !== undefined && problems.length === 0) {
    const wrong = checkValue(toField("default", field, false), field.default);
    if (wrong) problems.push(`its default is not valid: it must be ${wrong}`);
  }
  return problems;
}

function readable(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s\-_]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  const label = words.join(" ");
  return label ? label.charAt(0).toUpperCase() + label.slice(1) : name;
}

function toField(name: string, field: FormFieldInput, required: boolean): FormField {
  const kind = kindOf(field);
  const titled = field.oneOf ?? field.items?.anyOf;
  const choices = titled
    ? titled.map((o) => ({ value: o.const, title: o.title?.trim() || o.const }))
    : (field.enum ?? field.items?.enum ?? []).map((value, i) => ({ value, title: field.enumNames?.[i]?.trim() || value }));
  return {
    name,
    kind,
    label: field.title?.trim() || readable(name),
    description: field.description?.trim() || null,
    required,
    format: field.format ?? null,
    minLength: field.minLength ?? null,
    maxLength: field.maxLength ?? null,
    minimum: field.minimum ?? null,
    maximum: field.maximum ?? null,
    minItems: field.minItems ?? null,
    maxItems: field.maxItems ?? null,
    choices,
    default: field.default,
  };
}

/** The form's fields in the schema's order. */
export function formFields(schema: FormSchema): FormField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, field]) => toField(name, field, required.has(name)));
}

/** Whether a reply schema is a flat form (and so is shown as a form, not a JSON editor). */
export function isFlatForm(schema: unknown): schema is FormSchema {
  return FormSchemaSchema.safeParse(schema).success;
}

/** The form's schema, or a readable reason why it is not one: "properties.nights: minimum is above maximum". */
export function parseFormSchema(schema: unknown): { ok: true; schema: FormSchema } | { ok: false; error: string } {
  const parsed = FormSchemaSchema.safeParse(schema);
  return parsed.success ? { ok: true, schema: parsed.data } : { ok: false, error: describeZodError(parsed.error) };
}

// ---------------------------------------------------------------------------------------------
// Values

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2})(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;

function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** Whether a string is of a format (the server's JSON Schema validator uses these too). */
export const FORMAT_CHECKS: Record<FormFormat, (value: string) => boolean> = {
  email: (v) => v.length <= 320 && EMAIL.test(v),
  uri: (v) => {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(v) || /\s/.test(v)) return false;
    try {
      new URL(v);
      return true;
    } catch {
      return false;
    }
  },
  date: isDate,
  "date-time": (v) => {
    const m = DATE_TIME.exec(v);
    return m !== null && isDate(m[1]!) && Number(m[2]) < 24 && Number(m[3]) < 60 && !Number.isNaN(Date.parse(v));
  },
};

const FORMAT_NAMES: Record<FormFormat, string> = {
  email: "an email address",
  uri: "a web address such as https://example.com",
  date: "a date",
  "date-time": "a date and time",
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function rangeText(field: FormField): string {
  const noun = field.kind === "integer" ? "a whole number" : "a number";
  const { minimum: min, maximum: max } = field;
  if (min !== null && max !== null) return `${noun} from ${min} to ${max}`;
  if (min !== null) return `${noun} of at least ${min}`;
  if (max !== null) return `${noun} of at most ${max}`;
  return noun;
}

/** "one of EUR, USD, GBP" (the titles a person sees). */
function choiceText(field: FormField): string {
  const titles = field.choices.map((c) => c.title);
  return titles.length === 1 ? titles[0]! : `one of ${titles.join(", ")}`;
}

/** What a present value must be, or null when it is fine. */
function checkValue(field: FormField, value: unknown): string | null {
  switch (field.kind) {
    case "boolean":
      return typeof value === "boolean" ? null : "yes or no";
    case "number":
    case "integer": {
      const ok =
        typeof value === "number" &&
        Number.isFinite(value) &&
        (field.kind === "number" || Number.isInteger(value)) &&
        (field.minimum === null || value >= field.minimum) &&
        (field.maximum === null || value <= field.maximum);
      return ok ? null : rangeText(field);
    }
    case "choice":
      return typeof value === "string" && field.choices.some((c) => c.value === value) ? null : choiceText(field);
    case "multi": {
      const picked = Array.isArray(value) ? value : null;
      const known = picked !== null && picked.every((v) => typeof v === "string" && field.choices.some((c) => c.value === v)) && new Set(picked).size === picked.length;
      if (!known) return `any of ${field.choices.map((c) => c.title).join(", ")}`;
      if (field.minItems !== null && picked.length < field.minItems) return `at least ${plural(field.minItems, "choice")}`;
      if (field.maxItems !== null && picked.length > field.maxItems) return `at most ${plural(field.maxItems, "choice")}`;
      return null;
    }
    case "text": {
      if (typeof value !== "string") return "text";
      const length = [...value].length;
      if (field.minLength !== null && length < field.minLength) {
        return field.maxLength !== null && field.maxLength !== field.minLength ? `${field.minLength} to ${plural(field.maxLength, "character")}` : `at least ${plural(field.minLength, "character")}`;
      }
      if (field.maxLength !== null && length > field.maxLength) return `at most ${plural(field.maxLength, "character")}`;
      if (field.format && !FORMAT_CHECKS[field.format](value)) return FORMAT_NAMES[field.format];
      return null;
    }
  }
}

/**
 * What is wrong with one field's value, as a person reads it ("required", "one of EUR, USD, GBP",
 * "at least 3 characters", "an email address", "a whole number from 1 to 14"), or null.
 * `undefined` is a field left empty.
 */
export function validateField(field: FormField, value: unknown): string | null {
  if (value === undefined || value === null || (field.kind !== "boolean" && value === "")) return field.required ? "required" : null;
  return checkValue(field, value);
}

export type FormErrors = Record<string, string>;

/** Checks a whole reply: each field's error by its name (an unknown key is an error under its own name). */
export function validateForm(schema: FormSchema, value: unknown): { ok: true; content: FormContent } | { ok: false; errors: FormErrors } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, errors: { "": "the answer must be the form's fields" } };
  const reply = value as Record<string, unknown>;
  const errors: FormErrors = {};
  const content: FormContent = {};
  for (const field of formFields(schema)) {
    const v = Object.hasOwn(reply, field.name) ? reply[field.name] : undefined;
    const wrong = validateField(field, v);
    if (wrong) errors[field.name] = wrong;
    else if (v !== undefined && v !== null && !(field.kind !== "boolean" && v === "")) content[field.name] = v as FormContent[string];
  }
  if (schema.additionalProperties === false) {
    // A few unknown keys are named (a reply may carry thousands): enough to say what is wrong.
    const unknown = Object.keys(reply).filter((key) => !Object.hasOwn(schema.properties, key));
    for (const key of unknown.slice(0, 3)) errors[key.length > 100 ? `${key.slice(0, 99)}…` : key] = "not a field of this form";
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, content };
}

/** "nights: a whole number from 1 to 14; email: an email address" (labels, not names). */
export function describeFormErrors(schema: FormSchema, errors: FormErrors): string {
  const labels = new Map(formFields(schema).map((f) => [f.name, f.label]));
  return Object.entries(errors)
    .slice(0, 5)
    .map(([name, error]) => (name ? `${labels.get(name) ?? name}: ${error}` : error))
    .join("; ");
}

// ---------------------------------------------------------------------------------------------
// What the browser's form holds

/** The form as typed: text for text, number and choice fields, a boolean for a checkbox. */
export type FormDraft = Record<string, string | boolean | string[]>;

/** The starting values: each field's default, else empty (an unticked box). */
export function initialDraft(schema: FormSchema, preset?: unknown): FormDraft {
  const given = typeof preset === "object" && preset !== null && !Array.isArray(preset) ? (preset as Record<string, unknown>) : {};
  const draft: FormDraft = {};
  for (const field of formFields(schema)) {
    const v = Object.hasOwn(given, field.name) ? given[field.name] : field.default;
    if (field.kind === "boolean") draft[field.name] = v === true;
    else if (field.kind === "multi") draft[field.name] = Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
    else if (field.kind === "choice") draft[field.name] = typeof v === "string" ? v : "";
    else if (field.format === "date-time" && typeof v === "string") draft[field.name] = toLocalInput(v);
    else draft[field.name] = typeof v === "string" || typeof v === "number" ? String(v) : "";
  }
  return draft;
}

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** A `datetime-local` input's value ("2026-12-01T10:30", local time) as an RFC 3339 time in UTC. */
function fromLocalInput(value: string): string {
  if (!LOCAL_DATE_TIME.test(value)) return value;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? value : time.toISOString();
}

/** An RFC 3339 time as a `datetime-local` input's value, in local time. */
function toLocalInput(value: string): string {
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) return value;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())}T${pad(time.getHours())}:${pad(time.getMinutes())}`;
}

/**
 * The reply a draft makes, checked field by field: text trimmed, numbers read as numbers (text
 * that is no number stays text, so its error says what is allowed), empty fields left out.
 */
export function draftToContent(schema: FormSchema, draft: FormDraft): { ok: true; content: FormContent } | { ok: false; errors: FormErrors } {
  const reply: Record<string, FormContent[string]> = {};
  for (const field of formFields(schema)) {
    const raw = draft[field.name];
    if (field.kind === "boolean") {
      reply[field.name] = raw === true;
      continue;
    }
    if (field.kind === "multi") {
      reply[field.name] = pickedChoices(field, raw);
      continue;
    }
    const typed = typeof raw === "string" ? raw.trim() : "";
    if (typed === "") continue;
    if (field.kind === "number" || field.kind === "integer") {
      const n = Number(typed);
      reply[field.name] = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(typed) && Number.isFinite(n) ? n : typed;
    } else if (field.format === "date-time") reply[field.name] = fromLocalInput(typed);
    else reply[field.name] = typed;
  }
  return validateForm(schema, reply);
}

/**
 * A multi-select's draft as its list: ticked boxes (the browser), or text separated by commas (the
 * terminal: values or titles). Known choices come in the choices' order; an unknown word stays, so
 * the error says what is allowed.
 */
function pickedChoices(field: FormField, raw: FormDraft[string] | undefined): string[] {
  const words = Array.isArray(raw)
    ? raw
    : typeof raw === "string"
      ? raw
          .split(",")
          .map((w) => w.trim())
          .filter(Boolean)
      : [];
  const values = words.map((w) => field.choices.find((c) => c.value === w || c.title.toLowerCase() === w.toLowerCase())?.value ?? w);
  const known = field.choices.filter((c) => values.includes(c.value)).map((c) => c.value);
  return known.length === new Set(values).size ? known : values;
}

/** The server's per-field errors from a refused reply's `details`, if it has them. */
export function fieldErrorsOf(details: unknown): FormErrors | null {
  const fields = (details as { fields?: unknown } | null | undefined)?.fields;
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return null;
  const errors = Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === "string"));
  return Object.keys(errors).length > 0 ? errors : null;
}

/** A form's answer as a person reads it: "Destination: Lisbon · Nights: 4 · Currency: Euro · Travel insurance: Yes". */
export function describeFormAnswer(schema: FormSchema, content: unknown): string {
  if (typeof content !== "object" || content === null || Array.isArray(content)) return "";
  const given = content as Record<string, unknown>;
  return formFields(schema)
    .filter((f) => Object.hasOwn(given, f.name))
    .map((f) => {
      const v = given[f.name];
      const titleOf = (x: unknown) => f.choices.find((c) => c.value === x)?.title ?? String(x);
      const shown = f.kind === "boolean" ? (v === true ? "Yes" : "No") : f.kind === "choice" ? titleOf(v) : f.kind === "multi" && Array.isArray(v) ? v.map(titleOf).join(", ") || "None" : String(v);
      return `${f.label}: ${shown}`;
    })
    .join(" · ");
}
