import { AppError } from "./errors";
import { MAX_ANSWER_CHARS, type AnswerValue, type Question } from "./question";

type AnswerTarget = Pick<Question, "kind" | "options" | "multi" | "allowCustom">;

/**
 * Checks a reply against the question it answers and returns the value to store
 * (trimmed text, de-duplicated choices). Throws `invalid_answer` with a reason a person can act on.
 */
export function normalizeAnswer(question: AnswerTarget, value: AnswerValue): AnswerValue {
  const invalid = (reason: string) => new AppError("invalid_answer", reason);

  if (question.kind === "confirm") {
    if (typeof value !== "boolean") throw invalid("A confirm takes true or false.");
    return value;
  }
  if (typeof value === "boolean") throw invalid("This question takes text or a choice, not true/false.");

  const checkChoice = (raw: string): string => {
    const text = raw.trim();
    if (!text) throw invalid("The answer is empty.");
    if (text.length > MAX_ANSWER_CHARS) throw invalid(`The answer is longer than ${MAX_ANSWER_CHARS} characters.`);
    if (question.options.length > 0 && !question.allowCustom && !question.options.includes(text)) {
      throw invalid(`"${truncate(text)}" is not one of the options: ${question.options.join(", ")}.`);
    }
    return text;
  };

  if (question.multi) {
    if (!Array.isArray(value)) throw invalid('This question takes a list of choices (["a", "b"]), even of one.');
    if (value.length === 0) throw invalid("Choose at least one option.");
    return [...new Set(value.map(checkChoice))];
  }
  if (Array.isArray(value)) throw invalid('This question takes a single answer as text ("a"), not a list.');
  return checkChoice(value);
}

function truncate(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
