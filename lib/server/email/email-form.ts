import { cardKindOf, type ByCardKind } from "../../protocol/card-kinds";
import { ANSWER_FORM } from "../../protocol/email";
import { AppError } from "../../protocol/errors";
import { draftToContent, formFields, type FormDraft, type FormSchema } from "../../protocol/forms";
import type { JsonValue, Question } from "../../protocol/question";

/** What an answer page's POST asks for: a reply with its value, or a rejection with its reason. */
export type PageAnswer = { kind: "reply"; value: JsonValue } | { kind: "reject"; message: string | null };

const invalid = (message: string) => new AppError("invalid_answer", message);

function pickedOptions(q: Question, form: URLSearchParams): string[] {
  return form.getAll(ANSWER_FORM.choice).map((raw) => {
    const option = q.options[Number(raw)];
    if (!/^\d+$/.test(raw) || option === undefined) throw invalid("That choice is not one of this question's.");
    return option;
  });
}

/** How the page's form reads as an answer, by card: a new card kind fails the type check here. */
const READ: ByCardKind<(q: Question, form: URLSearchParams) => PageAnswer> = {
  choice: (q, form) => {
    const own = form.get(ANSWER_FORM.text)?.trim();
    if (own && q.allowCustom) return { kind: "reply", value: own };
    const [option] = pickedOptions(q, form);
    if (option === undefined) throw invalid("Choose one of the options.");
    return { kind: "reply", value: option };
  },
  multi_choice: (q, form) => {
    const options = pickedOptions(q, form);
    if (options.length === 0) throw invalid("Tick at least one option.");
    return { kind: "reply", value: options };
  },
  confirm: (_q, form) => {
    const said = form.get(ANSWER_FORM.confirm);
    if (said !== "yes" && said !== "no") throw invalid("Answer Yes or No.");
    return { kind: "reply", value: said === "yes" };
  },
  approval: (_q, form) => {
    const said = form.get(ANSWER_FORM.approval);
    if (said === "reject") return { kind: "reject", message: form.get(ANSWER_FORM.feedback)?.trim() || null };
    if (said !== "once" && said !== "always") throw invalid("Allow once, allow always, or reject.");
    return { kind: "reply", value: said };
  },
  text: (_q, form) => {
    const text = form.get(ANSWER_FORM.text)?.trim();
    if (!text) throw invalid("Write an answer.");
    return { kind: "reply", value: text };
  },
  form: (q, form) => {
    const schema = q.replySchema as FormSchema;
    const draft: FormDraft = {};
    for (const field of formFields(schema)) {
      const values = form.getAll(`${ANSWER_FORM.fieldPrefix}${field.name}`);
      draft[field.name] = field.kind === "multi" ? values : field.kind === "boolean" ? values.includes("true") : (values[0] ?? "");
    }
    const read = draftToContent(schema, draft);
    if (!read.ok)
      throw new AppError(
        "invalid_answer",
        Object.entries(read.errors)
          .map(([name, error]) => `${name}: ${error}`)
          .join("; "),
        { details: { fields: read.errors } },
      );
    return { kind: "reply", value: read.content };
  },
};

/** The answer an answer page's form gives, checked as far as the page can (the server checks it all again). */
export const readPageAnswer = (q: Question, form: URLSearchParams): PageAnswer => READ[cardKindOf(q)](q, form);
