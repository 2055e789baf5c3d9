import type { ReactNode } from "react";
import { cardKindOf, type ByCardKind } from "@/lib/protocol/card-kinds";
import { ANSWER_FORM, answerLinkApiPath, type AnswerPageView } from "@/lib/protocol/email";
import { formFields, type FormField, type FormSchema } from "@/lib/protocol/forms";
import type { Question } from "@/lib/protocol/question";
import { previewText } from "@/lib/protocol/preview-text";

/**
 * An email's answer page: the question and one button per answer, in a plain HTML form that works
 * without JavaScript (a mail app's browser may run none). Nothing is answered until a button is
 * pressed; `pick` (the answer the mail's link named) is the one shown first and focused.
 */

const button = "rounded-lg px-4 py-2.5 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-stone-900 focus-visible:ring-offset-2";
const primary = `${button} bg-stone-900 text-white hover:bg-stone-700`;
const secondary = `${button} border border-stone-300 bg-white text-stone-900 hover:bg-stone-50`;
const danger = `${button} border border-red-300 bg-white text-red-700 hover:bg-red-50`;
const field = "mt-1 w-full rounded-lg border border-stone-300 px-3 py-2 text-sm text-stone-900 focus:border-stone-900 focus:outline-none";

function Choice({ name, value, label, picked, style = secondary }: { name: string; value: string; label: string; picked: boolean; style?: string }) {
  return (
    <button type="submit" name={name} value={value} autoFocus={picked} className={`${picked ? primary : style} min-h-11`}>
      {label}
    </button>
  );
}

function FieldInput({ f }: { f: FormField }) {
  const name = `${ANSWER_FORM.fieldPrefix}${f.name}`;
  const d = f.default;
  switch (f.kind) {
    case "boolean":
      return (
        <label className="flex items-center gap-2 text-sm text-stone-800">
          <input type="checkbox" name={name} value="true" defaultChecked={d === true} className="h-4 w-4" /> {f.label}
        </label>
      );
    case "choice":
      return (
        <select name={name} defaultValue={typeof d === "string" ? d : ""} required={f.required} className={field}>
          {!f.required && <option value="">—</option>}
          {f.choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.title}
            </option>
          ))}
        </select>
      );
    case "multi":
      return (
        <div className="mt-1 flex flex-col gap-1">
          {f.choices.map((c) => (
            <label key={c.value} className="flex items-center gap-2 text-sm text-stone-800">
              <input type="checkbox" name={name} value={c.value} defaultChecked={Array.isArray(d) && d.includes(c.value)} className="h-4 w-4" /> {c.title}
            </label>
          ))}
        </div>
      );
    case "number":
    case "integer":
      return (
        <input
          type="number"
          name={name}
          step={f.kind === "integer" ? 1 : "any"}
          min={f.minimum ?? undefined}
          max={f.maximum ?? undefined}
          defaultValue={typeof d === "number" ? d : undefined}
          required={f.required}
          className={field}
        />
      );
    case "text":
      return (
        <input
          type={f.format === "email" ? "email" : f.format === "uri" ? "url" : f.format === "date" ? "date" : "text"}
          name={name}
          defaultValue={typeof d === "string" ? d : undefined}
          required={f.required}
          minLength={f.minLength ?? undefined}
          maxLength={f.maxLength ?? undefined}
          className={field}
        />
      );
    default:
      return f.kind satisfies never;
  }
}

/** The answer controls, by card: a new card kind fails the type check here. */
const CONTROLS: ByCardKind<(q: Question, pick: string | null) => ReactNode> = {
  choice: (q, pick) => (
    <>
      <div className="flex flex-wrap gap-2">
        {q.options.map((o, i) => (
          <Choice key={o} name={ANSWER_FORM.choice} value={String(i)} label={o} picked={pick === `choice-${i}`} />
        ))}
      </div>
      {q.allowCustom && (
        <label className="mt-4 block text-sm text-stone-700">
          Or in your words
          <span className="mt-1 flex gap-2">
            <input name={ANSWER_FORM.text} className={field} maxLength={10_000} />
            <button type="submit" className={secondary}>
              Send
            </button>
          </span>
        </label>
      )}
    </>
  ),
  multi_choice: (q) => (
    <fieldset>
      <legend className="sr-only">Choose one or more</legend>
      <div className="flex flex-col gap-2">
        {q.options.map((o, i) => (
          <label key={o} className="flex items-center gap-2 text-sm text-stone-800">
            <input type="checkbox" name={ANSWER_FORM.choice} value={String(i)} className="h-4 w-4" /> {o}
          </label>
        ))}
      </div>
      <button type="submit" className={`${primary} mt-4`}>
        Send
      </button>
    </fieldset>
  ),
  confirm: (_q, pick) => (
    <div className="flex gap-2">
      <Choice name={ANSWER_FORM.confirm} value="yes" label="Yes" picked={pick === "yes"} />
      <Choice name={ANSWER_FORM.confirm} value="no" label="No" picked={pick === "no"} />
    </div>
  ),
  approval: (_q, pick) => (
    <>
      <div className="flex flex-wrap gap-2">
        <Choice name={ANSWER_FORM.approval} value="once" label="Allow once" picked={pick === "once"} />
        <Choice name={ANSWER_FORM.approval} value="always" label="Allow always" picked={false} />
      </div>
      <label className="mt-5 block text-sm text-stone-700">
        Or reject it, saying why (the agent reads it)
        <textarea name={ANSWER_FORM.feedback} rows={2} maxLength={2_000} className={field} autoFocus={pick === "reject"} />
      </label>
      <button type="submit" name={ANSWER_FORM.approval} value="reject" className={`${danger} mt-2`}>
        Reject
      </button>
    </>
  ),
  text: () => (
    <>
      <textarea name={ANSWER_FORM.text} rows={4} maxLength={10_000} required autoFocus className={field} aria-label="Your answer" />
      <button type="submit" className={`${primary} mt-3`}>
        Send
      </button>
    </>
  ),
  form: (q) => (
    <>
      {formFields(q.replySchema as FormSchema).map((f) => (
        <label key={f.name} className="mb-4 block text-sm font-medium text-stone-800">
          {f.kind === "boolean" ? null : f.label}
          {f.required && f.kind !== "boolean" && <span className="text-stone-500"> (required)</span>}
          <FieldInput f={f} />
          {f.description && <span className="mt-1 block text-xs font-normal text-stone-500">{f.description}</span>}
        </label>
      ))}
      <button type="submit" className={primary}>
        Send
      </button>
    </>
  ),
};

function Shell({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-dvh items-start justify-center bg-stone-50 px-4 py-10 sm:items-center">
      <div className="w-full max-w-lg rounded-2xl border border-stone-200 bg-white p-6 shadow-sm sm:p-8">{children}</div>
    </main>
  );
}

export function AnswerByLink({ token, view, pick }: { token: string; view: AnswerPageView; pick: string | null }) {
  if (view.state === "invalid" || view.state === "not_allowed") {
    return (
      <Shell>
        <h1 className="text-xl font-semibold text-stone-900">This link answers nothing</h1>
        <p className="mt-2 text-sm leading-6 text-stone-600">{view.state === "invalid" ? "It is not a link this Parley server made: check that the whole link was opened." : view.reason}</p>
      </Shell>
    );
  }
  const q = view.question;
  const asked = q.approval ? `${q.approval.tool}: ${q.approval.subject}` : q.prompt;
  if (view.state === "settled") {
    return (
      <Shell>
        <p className="text-sm text-stone-500">{q.owner} asked</p>
        <h1 className="mt-1 text-lg font-semibold whitespace-pre-wrap text-stone-900">{asked}</h1>
        <p role="status" className="mt-4 rounded-lg bg-stone-100 px-4 py-3 text-sm text-stone-800">
          {view.outcome}
        </p>
      </Shell>
    );
  }
  return (
    <Shell>
      <p className="text-sm text-stone-500">
        {q.owner} asks in “{view.chatTitle}”
      </p>
      <h1 className="mt-1 text-lg font-semibold whitespace-pre-wrap text-stone-900">{asked}</h1>
      {q.detail && <p className="mt-2 text-sm whitespace-pre-wrap text-stone-600">{q.detail}</p>}
      {q.approval && (
        <pre data-testid="answer-preview" className="mt-3 max-h-64 overflow-auto rounded-lg bg-stone-900 p-3 text-xs leading-5 text-stone-100">
          {previewText(q.approval.preview)}
        </pre>
      )}
      {view.error && (
        <p role="alert" className="mt-4 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          {view.error}
        </p>
      )}
      <form method="post" action={answerLinkApiPath(token)} className="mt-6">
        {CONTROLS[cardKindOf(q)](q, pick)}
      </form>
      <p className="mt-6 text-xs leading-5 text-stone-500">
        You answer as yourself: this link is yours alone.{" "}
        <a href={view.cardUrl} className="underline">
          The whole card in Parley
        </a>
      </p>
    </Shell>
  );
}
