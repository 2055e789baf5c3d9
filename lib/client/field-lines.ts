import type { FormDraft, FormField } from "../protocol/forms";

/** Who wrote the schema a field comes from: a form's author (a question), or a tool (an approval's Edit form). */
export type FieldSource = "form" | "tool";

/** A form's author bounds a paragraph (hotel notes: 500 characters) and keeps one line's bound short. */
const FORM_LINES_ABOVE = 120;
/** A tool's schema bounds every string generously (a path: 1 000, a command: 10 000): only a file's text goes beyond. */
const TOOL_LINES_ABOVE = 10_000;
/** Fields that hold a file's text in well-known tools' inputs (Claude Code's, the text editor tool's), bounded or not. */
const TOOL_TEXT_KEYS: ReadonlySet<string> = new Set(["content", "new_string", "old_string", "new_source", "file_text", "old_str", "new_str"]);

/**
 * Whether a field is edited in a box of several lines rather than one line: a text the schema marks
 * long (its bound; a tool's file text by its name), or a value that already holds a line break (one
 * line would drop it). A field with a format (a date, an address, a path) is one line.
 */
export function takesLines(field: FormField, value: FormDraft[string] | undefined, source: FieldSource): boolean {
  if (field.kind !== "text") return false;
  if (typeof value === "string" && /[\r\n]/.test(value)) return true;
  if (field.format !== null) return false;
  if (source === "tool" && TOOL_TEXT_KEYS.has(field.name)) return true;
  return (field.maxLength ?? 0) > (source === "tool" ? TOOL_LINES_ABOVE : FORM_LINES_ABOVE);
}
