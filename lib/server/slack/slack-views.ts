import { plain } from "./slack-blocks";
import type { InputBlock, KnownBlock, ModalView, PlainTextOption } from "@slack/web-api";
import { cardKindOf } from "../../protocol/card-kinds";
import { draftToContent, formFields, type FormContent, type FormDraft, type FormErrors, type FormField, type FormSchema } from "../../protocol/forms";
import { MAX_ANSWER_CHARS, type Question } from "../../protocol/question";
import { editedJson } from "../../protocol/edited-input";
import { SLACK_VIEWS, type SlackInputState, type SlackStateValues } from "../../protocol/slack";

/**
 * The modals Parley opens in Slack: "Answer…" (free text, a choice's own words, a form's fields)
 * and "Reject…" (an approval's feedback), and how their submissions read back.
 */

/** Slack's limits: a modal's title, a text input's length, blocks in a view. */
const MAX_TITLE = 24;
const MAX_TEXT_INPUT = 3_000;
const option = (value: string, title: string): PlainTextOption => ({ text: plain(title), value });

/** The block and action ids of the inputs: one per form field, one for free text or feedback. */
export const ANSWER_BLOCK = "parley_answer";
export const FEEDBACK_BLOCK = "parley_feedback";
export const INPUT_BLOCK = "parley_input";
const INPUT = "value";
export const fieldBlockId = (name: string) => `field_${name}`;

function modal(callbackId: string, questionId: string, title: string, submit: string, blocks: KnownBlock[]): ModalView {
  return { type: "modal", callback_id: callbackId, private_metadata: questionId, title: plain(title, MAX_TITLE), submit: plain(submit, MAX_TITLE), close: plain("Cancel", MAX_TITLE), blocks };
}

const promptBlock = (q: Question): KnownBlock => ({ type: "section", text: plain(q.prompt, 3_000) });

/** One form field as a Slack input, with its default filled in. */
function fieldInput(field: FormField): InputBlock {
  const base = {
    type: "input" as const,
    block_id: fieldBlockId(field.name),
    label: plain(field.label, 2_000),
    optional: !field.required,
    ...(field.description ? { hint: plain(field.description, 2_000) } : {}),
  };
  const d = field.default;
  const choices = field.choices.map((c) => option(c.value, c.title));
  switch (field.kind) {
    case "boolean":
      return { ...base, optional: true, element: { type: "checkboxes", action_id: INPUT, options: [option("true", "Yes")], ...(d === true ? { initial_options: [option("true", "Yes")] } : {}) } };
    case "choice": {
      const initial = choices.find((c) => c.value === d);
      return { ...base, element: { type: "static_select", action_id: INPUT, options: choices, placeholder: plain("Choose…"), ...(initial ? { initial_option: initial } : {}) } };
    }
    case "multi": {
      const initial = choices.filter((c) => Array.isArray(d) && d.includes(c.value ?? ""));
      return { ...base, element: { type: "multi_static_select", action_id: INPUT, options: choices, placeholder: plain("Choose…"), ...(initial.length ? { initial_options: initial } : {}) } };
    }
    case "number":
    case "integer":
      return {
        ...base,
        element: {
          type: "number_input",
          action_id: INPUT,
          is_decimal_allowed: field.kind === "number",
          ...(field.minimum !== null ? { min_value: String(field.minimum) } : {}),
          ...(field.maximum !== null ? { max_value: String(field.maximum) } : {}),
          ...(typeof d === "number" ? { initial_value: String(d) } : {}),
        },
      };
    case "text":
      if (field.format === "date") return { ...base, element: { type: "datepicker", action_id: INPUT, ...(typeof d === "string" ? { initial_date: d } : {}) } };
      return {
        ...base,
        element: {
          type: "plain_text_input",
          action_id: INPUT,
          max_length: Math.min(field.maxLength ?? MAX_TEXT_INPUT, MAX_TEXT_INPUT),
          ...(field.minLength ? { min_length: Math.min(field.minLength, MAX_TEXT_INPUT) } : {}),
          ...(typeof d === "string" ? { initial_value: d } : {}),
        },
      };
    default:
      return field.kind satisfies never;
  }
}

/** "Answer…": the form's fields, else one text box (a free-text question, a choice's own words). */
export function answerModal(q: Question): ModalView {
  const schema = cardKindOf(q) === "form" ? (q.replySchema as FormSchema) : null;
  const inputs: KnownBlock[] = schema
    ? formFields(schema).map(fieldInput)
    : [
        {
          type: "input",
          block_id: ANSWER_BLOCK,
          label: plain(q.options.length > 0 ? "Your answer, in your words" : "Your answer"),
          element: { type: "plain_text_input", action_id: INPUT, multiline: true, max_length: Math.min(MAX_ANSWER_CHARS, MAX_TEXT_INPUT) },
        },
      ];
  return modal(SLACK_VIEWS.answer, q.id, "Answer", "Send", [promptBlock(q), ...inputs]);
}

/** "Reject…": why, for the agent to read (optional). */
export function rejectModal(q: Question): ModalView {
  return modal(SLACK_VIEWS.reject, q.id, "Reject", "Reject", [
    promptBlock(q),
    { type: "input", block_id: FEEDBACK_BLOCK, optional: true, label: plain("Why (the agent reads it)"), element: { type: "plain_text_input", action_id: INPUT, multiline: true, max_length: 2_000 } },
  ]);
}

/** "Edit…": the tool's input as JSON, to change before allowing it once (the server checks it as the agent's own call). */
export function editModal(q: Question): ModalView {
  const input = JSON.stringify(q.approval?.input ?? {}, null, 2);
  return modal(SLACK_VIEWS.edit, q.id, "Edit and allow", "Allow once", [
    { type: "section", text: plain(`${q.approval?.tool ?? "The tool"}'s input: change it, then allow it once.`, 3_000) },
    {
      type: "input",
      block_id: INPUT_BLOCK,
      label: plain("Input (JSON)"),
      element: { type: "plain_text_input", action_id: INPUT, multiline: true, max_length: MAX_TEXT_INPUT, ...(input.length <= MAX_TEXT_INPUT ? { initial_value: input } : {}) },
    },
  ]);
}

/** The edited input, or why it is no tool input. */
export function readEditModal(values: SlackStateValues): { ok: true; input: Record<string, unknown> } | { ok: false; errors: Record<string, string> } {
  const read = editedJson(inputOf(values, INPUT_BLOCK)?.value ?? "");
  return read.ok ? read : { ok: false, errors: { [INPUT_BLOCK]: read.error } };
}

const inputOf = (values: SlackStateValues, blockId: string): SlackInputState | undefined => values[blockId]?.[INPUT];

/** What one input holds, as the form's draft keeps it. */
function draftValue(field: FormField, input: SlackInputState | undefined): FormDraft[string] {
  if (field.kind === "boolean") return (input?.selected_options ?? []).some((o) => o.value === "true");
  if (field.kind === "multi") return (input?.selected_options ?? []).map((o) => o.value);
  if (field.kind === "choice") return input?.selected_option?.value ?? "";
  return input?.selected_date ?? input?.value ?? "";
}

/**
 * A submitted answer modal as the reply it makes: a form's content, checked field by field as the
 * server checks it (errors keyed by the input's block, as Slack shows them), or the typed text.
 */
export function readAnswerModal(q: Question, values: SlackStateValues): { ok: true; value: FormContent | string } | { ok: false; errors: Record<string, string> } {
  if (cardKindOf(q) === "form") {
    const schema = q.replySchema as FormSchema;
    const draft: FormDraft = Object.fromEntries(formFields(schema).map((f) => [f.name, draftValue(f, inputOf(values, fieldBlockId(f.name)))]));
    const read = draftToContent(schema, draft);
    return read.ok ? { ok: true, value: read.content } : { ok: false, errors: blockErrors(read.errors) };
  }
  const text = (inputOf(values, ANSWER_BLOCK)?.value ?? "").trim();
  return text ? { ok: true, value: text } : { ok: false, errors: { [ANSWER_BLOCK]: "Write an answer." } };
}

/** A form's errors (by field) as Slack shows them on a modal (by block). */
export const blockErrors = (errors: FormErrors): Record<string, string> => Object.fromEntries(Object.entries(errors).map(([name, message]) => [fieldBlockId(name), message]));

/** The feedback typed into the reject modal, or null. */
export function readRejectModal(values: SlackStateValues): string | null {
  return inputOf(values, FEEDBACK_BLOCK)?.value?.trim() || null;
}
