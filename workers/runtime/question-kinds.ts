import { describeFormErrors, parseFormSchema, validateForm, type FormContent } from "../../lib/protocol/forms";
import type { JsonValue, QuestionSpecInput } from "../../lib/protocol/question";
import { AskTimeout, CannotAsk, FormSchemaInvalid, RunCancelled, UserDeclined } from "./errors";
import { audienceOf, timeoutOf, type Questions } from "./questions";
import type { RunContext } from "./run-context";
import type { AskJsonOptions, AskOptions, ConfirmOptions, FormOptions, FormResult, Runtime, Settlement } from "./types";

/**
 * The kinds of question a function asks a person: each builds its spec, says what a run nobody can
 * answer gets instead, and reads the settlement as its result (an approval is rt.tool's: tool-runner.ts).
 */
export type QuestionKinds = Pick<Runtime, "ask" | "askJson" | "confirm" | "form" | "askUser">;

export function createQuestionKinds(ctx: RunContext, questions: Questions): QuestionKinds {
  const { host, own } = ctx;

  /** A question (not a confirm): the default when nobody can answer, else the person's outcome. */
  async function question(prompt: string, spec: Omit<QuestionSpecInput, "kind" | "prompt" | "default">, fallback: JsonValue | undefined): Promise<JsonValue> {
    const hasDefault = fallback !== undefined;
    if (!host.canAsk) {
      if (hasDefault) return fallback;
      throw own(new CannotAsk(prompt));
    }
    const s = await questions.settlementFor({ kind: "question", prompt, ...spec, ...(hasDefault ? { default: fallback } : {}) });
    return outcomeOf(prompt, s, hasDefault, fallback);
  }

  function outcomeOf(prompt: string, s: Settlement, hasDefault: boolean, fallback: JsonValue | undefined): JsonValue {
    switch (s.outcome) {
      case "answered":
        return s.value;
      case "declined":
        throw own(new UserDeclined(s.feedback));
      case "timed_out":
        if (hasDefault) return fallback!;
        throw own(new AskTimeout(prompt));
      case "cancelled":
      case "expired":
        throw own(new RunCancelled(s.feedback ?? `The question "${prompt}" was ${s.outcome}.`));
    }
  }

  async function ask(prompt: string, options: AskOptions = {}): Promise<string | string[]> {
    const spec = {
      options: options.options ?? [],
      multi: options.multi ?? false,
      allowCustom: options.allowCustom ?? false,
      detail: options.detail ?? null,
      timeoutMs: timeoutOf(options.timeoutMs),
      owner: options.owner,
      ...audienceOf(options),
    };
    return (await question(prompt, spec, options.default)) as string | string[];
  }

  async function askJson<T extends JsonValue>(prompt: string, options: AskJsonOptions): Promise<T> {
    const spec = { detail: options.detail ?? null, timeoutMs: timeoutOf(options.timeoutMs), replySchema: options.schema, owner: options.owner, ...audienceOf(options) };
    return (await question(prompt, spec, options.default)) as T;
  }

  async function confirm(prompt: string, options: ConfirmOptions = {}): Promise<boolean> {
    const fallback = options.default ?? false;
    if (!host.canAsk) return fallback;
    const s = await questions.settlementFor({
      kind: "confirm",
      prompt,
      detail: options.detail ?? null,
      timeoutMs: timeoutOf(options.timeoutMs),
      owner: options.owner,
      default: fallback,
      ...audienceOf(options),
    });
    switch (s.outcome) {
      case "answered":
        return s.value === true;
      case "declined":
        return false;
      case "timed_out":
        return fallback;
      case "cancelled":
      case "expired":
        throw own(new RunCancelled(s.feedback ?? `The question "${prompt}" was ${s.outcome}.`));
    }
  }

  async function form(message: string, schema: Record<string, unknown>, options: FormOptions = {}): Promise<FormResult> {
    const parsed = parseFormSchema(schema);
    if (!parsed.ok) throw own(new FormSchemaInvalid(message, parsed.error));
    const hasDefault = options.default !== undefined;
    if (hasDefault) {
      const checked = validateForm(parsed.schema, options.default);
      if (!checked.ok) throw own(new FormSchemaInvalid(message, `its default does not fit: ${describeFormErrors(parsed.schema, checked.errors)}`));
    }
    if (!host.canAsk) {
      if (hasDefault) return { action: "accept", content: options.default! };
      throw own(new CannotAsk(message));
    }
    const s = await questions.settlementFor({
      kind: "question",
      prompt: message,
      detail: options.detail ?? null,
      timeoutMs: timeoutOf(options.timeoutMs),
      replySchema: schema,
      owner: options.owner,
      ...(hasDefault ? { default: options.default } : {}),
      ...audienceOf(options),
    });
    switch (s.outcome) {
      case "answered":
        return { action: "accept", content: s.value as FormContent };
      case "declined":
        return s.feedback ? { action: "decline", feedback: s.feedback } : { action: "decline" };
      case "timed_out":
        return hasDefault ? { action: "accept", content: options.default! } : { action: "cancel" };
      case "cancelled":
      case "expired":
        throw own(new RunCancelled(s.feedback ?? `The form "${message}" was ${s.outcome}.`));
    }
  }

  return {
    ask: ask as Runtime["ask"],
    askJson,
    confirm,
    form: form as Runtime["form"],
    async askUser(prompt, options = {}) {
      try {
        return (await ask(prompt, { ...options, multi: false })) as string;
      } catch (err) {
        if (err instanceof UserDeclined || err instanceof AskTimeout || err instanceof CannotAsk) return null;
        throw err;
      }
    },
  };
}
