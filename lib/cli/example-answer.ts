import { formFields, parseFormSchema, type FormContent, type FormField } from "../protocol/forms";
import type { Question } from "../protocol/question";

const FORMAT_EXAMPLES = { email: "name@example.com", uri: "https://example.com", date: "2026-01-31", "date-time": "2026-01-31T09:00:00Z" } as const;

/** A value a form field takes: its default, else its first choice, else one within its bounds. */
function fieldExample(field: FormField): FormContent[string] {
  if (field.default !== undefined) return field.default;
  switch (field.kind) {
    case "boolean":
      return false;
    case "choice":
      return field.choices[0]?.value ?? "";
    case "multi":
      return field.choices.slice(0, Math.max(1, field.minItems ?? 1)).map((c) => c.value);
    case "number":
    case "integer":
      return field.minimum ?? (field.maximum !== null ? Math.min(0, field.maximum) : 0);
    case "text": {
      if (field.format) return FORMAT_EXAMPLES[field.format];
      const word = field.label.toLowerCase();
      return word.length >= (field.minLength ?? 0) ? word.slice(0, field.maxLength ?? undefined) : word.padEnd(field.minLength ?? 0, "x");
    }
  }
}

/** A form's answer a person can start from: every field, each with a value its checks accept. */
export function formExample(schema: unknown): FormContent | null {
  const form = parseFormSchema(schema);
  if (!form.ok) return null;
  return Object.fromEntries(formFields(form.schema).map((field) => [field.name, fieldExample(field)]));
}

/** An answer the question accepts, as JSON: an approval's "once", a confirm's true, a form's fields, a choice's first option. */
export function exampleAnswer(q: Question): string {
  if (q.kind === "approval") return JSON.stringify("once");
  if (q.kind === "confirm") return "true";
  if (q.replySchema) return JSON.stringify(q.default ?? formExample(q.replySchema) ?? {});
  if (q.multi) return JSON.stringify(q.options.slice(0, 1));
  return JSON.stringify(q.options[0] ?? "your answer");
}

/** What else the question takes, in words after its example: "or \"always\"", "false for No". */
export function otherAnswers(q: Question): string | null {
  if (q.kind === "approval") return q.approval && q.approval.always.length > 0 ? `"always" to allow it from now on; decline rejects it` : "decline rejects it";
  if (q.kind === "confirm") return "true for Yes, false for No";
  if (q.replySchema) return formExample(q.replySchema) ? "one value per field of the form" : "JSON matching the reply schema";
  if (q.options.length > 0) return `${q.multi ? "a list of" : "one of"} the options${q.allowCustom ? ", or your own text" : ""}`;
  return null;
}
