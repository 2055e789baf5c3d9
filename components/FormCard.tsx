"use client";

import { useId, useMemo, useRef, useState, type FormEvent } from "react";
import type { JsonValue, Question } from "@/lib/protocol/question";
import { draftToContent, fieldErrorsOf, formFields, initialDraft, parseFormSchema, type FormDraft, type FormErrors, type FormSchema } from "@/lib/protocol/forms";
import { ActionButton, CardHeader, CardMessages, DeclineBar, Kbd, KeyGuardNote } from "@/components/QuestionCardParts";
import { FormFieldInput } from "@/components/FormFieldInput";
import { useDecline } from "@/components/use-decline";
import { useSettle, type Settle } from "@/components/use-settle";
import { questionAnchor } from "@/lib/protocol/question-notification";

interface FormBodyProps {
  question: Question;
  position: { at: number; total: number; go: (delta: number) => void } | null;
  onReply: (question: Question, value: JsonValue) => Settle;
  onReject: (question: Question, message?: string) => Settle;
  notice: string | null;
}

/**
 * The card of a form (`rt.form`, or `rt.askJson` with a flat reply schema): a labelled field for
 * each of the schema's fields, checked before anything is sent (the same checks as the server's,
 * lib/protocol/forms.ts), each error beside its field; Submit sends, Decline (or Escape) declines.
 */
export function FormBody(props: FormBodyProps) {
  const schema = useMemo(() => {
    const parsed = parseFormSchema(props.question.replySchema);
    return parsed.ok ? parsed.schema : null;
  }, [props.question.replySchema]);
  // QuestionCard picks this card only for a flat form.
  if (!schema) return null;
  return <FormCard {...props} schema={schema} />;
}

function FormCard({ question, schema, position, onReply, onReject, notice }: FormBodyProps & { schema: FormSchema }) {
  const fields = useMemo(() => formFields(schema), [schema]);
  const { busy, error, setError, settle } = useSettle("This form changed since it was shown. Check it and send it again.");
  const [draft, setDraft] = useState<FormDraft>(() => initialDraft(schema, question.hasDefault ? question.default : undefined));
  const [errors, setErrors] = useState<FormErrors>({});
  const card = useRef<HTMLFormElement>(null);
  const promptId = useId();
  const detailId = useId();
  const idBase = useId();
  const inputId = (name: string) => `${idBase}-${name}`;

  /** The error a field has with this draft (null when it is fine). */
  const errorOf = (next: FormDraft, name: string): string | null => {
    const result = draftToContent(schema, next);
    return result.ok ? null : (result.errors[name] ?? null);
  };
  const setFieldError = (name: string, message: string | null) =>
    setErrors((all) => {
      if ((all[name] ?? null) === message) return all;
      const { [name]: _dropped, ...rest } = all;
      return message ? { ...rest, [name]: message } : rest;
    });

  const change = (name: string, value: FormDraft[string]) => {
    const next = { ...draft, [name]: value };
    setDraft(next);
    // A field that shows an error is checked again as it changes, so the error leaves once it is fixed.
    if (errors[name]) setFieldError(name, errorOf(next, name));
  };
  const focusField = (name: string) => document.getElementById(inputId(name))?.focus();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const result = draftToContent(schema, draft);
    if (!result.ok) {
      setErrors(result.errors);
      setError(null);
      const first = fields.find((f) => result.errors[f.name]);
      if (first) focusField(first.name);
      return;
    }
    setErrors({});
    void settle(async () => {
      const ack = await onReply(question, result.content);
      if (!ack.ok) {
        // The server's check names the fields too: show each error beside its field.
        const fromServer = fieldErrorsOf(ack.error.details);
        if (fromServer) {
          setErrors(fromServer);
          const first = fields.find((f) => fromServer[f.name]);
          if (first) setTimeout(() => focusField(first.name), 0);
        }
      }
      return ack;
    });
  };

  const {
    open: declineOpen,
    setOpen: setDeclineOpen,
    bar: declineBar,
    keys,
  } = useDecline({
    card,
    pick: () => {},
    maxDigit: 0,
    onDecline: (message) => settle(() => onReject(question, message)),
  });

  const wrong = fields.filter((f) => errors[f.name]).length;
  const description = schema.description?.trim() && schema.description.trim() !== question.prompt.trim() ? schema.description.trim() : null;

  return (
    <form
      ref={card}
      noValidate
      onSubmit={submit}
      id={questionAnchor(question.id)}
      data-testid="question-card"
      data-question-id={question.id}
      data-kind="form"
      data-keys={keys.state}
      tabIndex={-1}
      aria-labelledby={promptId}
      aria-describedby={question.detail || description ? detailId : undefined}
      aria-busy={busy}
      className="mx-auto w-full max-w-3xl overflow-hidden rounded-2xl border border-indigo-200 bg-white shadow-lg shadow-indigo-900/5 ring-4 ring-indigo-50 outline-none focus-visible:ring-indigo-200"
    >
      <CardHeader question={question} verb="asks" position={position} />

      <div className="max-h-[55vh] space-y-4 overflow-y-auto px-4 pb-4 pt-3">
        <div className="space-y-1">
          <h2 id={promptId} data-testid="question-prompt" className="whitespace-pre-wrap text-base font-medium text-stone-900">
            {question.prompt}
          </h2>
          {(question.detail || description) && (
            <p id={detailId} data-testid="question-detail" className="whitespace-pre-wrap text-sm text-stone-600">
              {[description, question.detail].filter(Boolean).join("\n")}
            </p>
          )}
        </div>

        <div className="grid gap-x-4 gap-y-4 sm:grid-cols-2">
          {fields.map((field, i) => (
            <FormFieldInput
              key={field.name}
              field={field}
              id={inputId(field.name)}
              value={draft[field.name] ?? ""}
              error={errors[field.name] ?? null}
              disabled={busy}
              autoFocus={i === 0}
              onChange={(value) => change(field.name, value)}
            />
          ))}
        </div>

        <KeyGuardNote note={keys.note} />
        <CardMessages error={error} notice={notice} />
      </div>

      {/* The answers stay in view below the fields, however long the form. */}
      {declineOpen ? (
        <DeclineBar {...declineBar} busy={busy} hint="" />
      ) : (
        <footer className="flex flex-wrap items-center gap-x-3 gap-y-2 border-t border-stone-100 bg-stone-50/60 px-4 py-2.5">
          {wrong > 0 ? (
            <p data-testid="form-summary" className="w-full text-sm font-medium text-red-700 sm:mr-auto sm:w-auto">
              {wrong === 1 ? "One field needs a change." : `${wrong} fields need a change.`}
            </p>
          ) : (
            <p className="w-full text-xs text-stone-500 sm:mr-auto sm:w-auto">
              {fields.some((f) => f.required) && (
                <>
                  <span aria-hidden className="text-red-600">
                    *
                  </span>{" "}
                  required
                </>
              )}
              <span data-testid="question-key-hint" className="hidden sm:inline pointer-coarse:hidden">
                {fields.some((f) => f.required) ? " · " : ""}Enter to submit
              </span>
            </p>
          )}
          <button
            type="button"
            data-testid="question-decline"
            aria-keyshortcuts="Escape"
            onClick={() => setDeclineOpen(true)}
            disabled={busy}
            className="ml-auto inline-flex min-h-10 items-center gap-2 rounded-lg pointer-coarse:min-h-11 px-3.5 py-2 text-sm font-medium text-stone-600 hover:bg-stone-200/70 hover:text-stone-900 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            Decline <Kbd>Esc</Kbd>
          </button>
          <ActionButton testId="question-submit" primary submit disabled={busy}>
            {busy ? "Sending…" : "Submit"}
          </ActionButton>
        </footer>
      )}
    </form>
  );
}
