"use client";

import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import type { ApprovalSpec } from "@/lib/protocol/permissions";
import { draftToContent, formFields, initialDraft, parseFormSchema, type FormDraft, type FormErrors } from "@/lib/protocol/forms";
import { editedJson } from "@/lib/protocol/edited-input";
import { FormFieldInput } from "@/components/FormFieldInput";
import { BackButton, PanelConfirm } from "@/components/QuestionCardParts";

interface ApprovalEditorProps {
  approval: ApprovalSpec;
  busy: boolean;
  /** Allows the call once with this input (the server checks it against the tool's schema and the rules). */
  onAllow: (input: Record<string, unknown>) => void;
  onBack: () => void;
}

/**
 * "Edit and allow": the tool's input, as a form when its schema is flat (each field checked as the
 * server will), otherwise as JSON; "Allow once" runs the tool with it. The person can switch to
 * JSON from the form, and back while the JSON fits the form.
 */
export function ApprovalEditor({ approval, busy, onAllow, onBack }: ApprovalEditorProps) {
  const form = useMemo(() => {
    const parsed = approval.edit ? parseFormSchema(approval.edit.schema) : null;
    return parsed?.ok ? parsed.schema : null;
  }, [approval.edit]);
  const fields = useMemo(() => (form ? formFields(form) : []), [form]);
  const [asJson, setAsJson] = useState(form === null);
  const [draft, setDraft] = useState<FormDraft>(() => (form ? initialDraft(form, approval.input) : {}));
  const [text, setText] = useState(() => JSON.stringify(approval.input, null, 2));
  const [errors, setErrors] = useState<FormErrors>({});
  const [jsonError, setJsonError] = useState<string | null>(null);
  const first = useRef<HTMLDivElement>(null);
  const idBase = useId();
  const jsonId = useId();
  const jsonErrorId = useId();

  useEffect(() => {
    first.current?.querySelector<HTMLElement>("input, textarea, select")?.focus();
  }, [asJson]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (asJson || !form) {
      const parsed = editedJson(text);
      setJsonError(parsed.ok ? null : parsed.error);
      if (parsed.ok) onAllow(parsed.input);
      return;
    }
    const result = draftToContent(form, draft);
    if (!result.ok) return setErrors(result.errors);
    setErrors({});
    onAllow(result.content);
  };

  const toJson = () => {
    const content = form ? draftToContent(form, draft) : null;
    setText(JSON.stringify(content?.ok ? content.content : approval.input, null, 2));
    setJsonError(null);
    setAsJson(true);
  };
  const toForm = () => {
    const parsed = editedJson(text);
    if (!parsed.ok || !form) return setJsonError(parsed.ok ? null : parsed.error);
    setDraft(initialDraft(form, parsed.input));
    setErrors({});
    setAsJson(false);
  };

  return (
    <form data-testid="approval-editor" noValidate onSubmit={submit} className="space-y-3 rounded-xl border border-indigo-200 bg-indigo-50/40 p-3">
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <p className="text-sm font-medium text-stone-800">
          Edit <code className="rounded bg-stone-100 px-1 py-0.5 font-mono text-[0.9em] text-stone-800">{approval.tool}</code>&apos;s input, then allow it once
        </p>
        {form && (
          <button
            type="button"
            data-testid="approval-editor-mode"
            onClick={asJson ? toForm : toJson}
            disabled={busy}
            className="-my-1 ml-auto inline-flex min-h-8 items-center rounded-lg px-2 text-xs font-medium text-indigo-700 underline-offset-2 pointer-coarse:min-h-11 pointer-coarse:px-3 hover:underline disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            {asJson ? "Edit as a form" : "Edit as JSON"}
          </button>
        )}
      </div>

      <div ref={first}>
        {asJson || !form ? (
          <div className="space-y-1">
            <label htmlFor={jsonId} className="sr-only">
              The input as JSON
            </label>
            <textarea
              id={jsonId}
              data-testid="approval-editor-json"
              rows={Math.min(12, Math.max(4, text.split("\n").length))}
              spellCheck={false}
              value={text}
              disabled={busy}
              aria-invalid={jsonError ? true : undefined}
              aria-describedby={jsonError ? jsonErrorId : undefined}
              onChange={(e) => setText(e.target.value)}
              className={`w-full resize-y rounded-lg border bg-white px-3 py-2 font-mono text-[13px] text-stone-900 outline-none ${
                jsonError ? "border-red-400 focus:ring-2 focus:ring-red-100" : "border-stone-300 focus:border-indigo-400 focus:ring-2 focus:ring-indigo-100"
              }`}
            />
            {jsonError && (
              <p id={jsonErrorId} data-testid="approval-editor-error" className="text-sm font-medium text-red-700">
                {jsonError}
              </p>
            )}
          </div>
        ) : (
          <div className="grid gap-x-4 gap-y-3 sm:grid-cols-2">
            {fields.map((field) => (
              <FormFieldInput
                key={field.name}
                field={field}
                id={`${idBase}-${field.name}`}
                value={draft[field.name] ?? ""}
                error={errors[field.name] ?? null}
                disabled={busy}
                autoFocus={false}
                source="tool"
                onChange={(value) => {
                  setDraft((d) => ({ ...d, [field.name]: value }));
                  if (errors[field.name]) setErrors(({ [field.name]: _fixed, ...rest }) => rest);
                }}
              />
            ))}
          </div>
        )}
      </div>

      <div className="flex flex-wrap items-center justify-end gap-2">
        <span className="mr-auto text-xs text-stone-500">Runs once with your changes; the rules still apply.</span>
        <BackButton testId="approval-editor-back" onClick={onBack} disabled={busy} />
        <PanelConfirm testId="approval-editor-allow" disabled={busy}>
          {busy ? "Allowing…" : "Allow once, edited"}
        </PanelConfirm>
      </div>
    </form>
  );
}
