"use client";

import { useState, type ReactNode } from "react";
import type { FormDraft, FormField } from "@/lib/protocol/forms";
import { takesLines, type FieldSource } from "@/lib/client/field-lines";

/** "Required", or "Must be a whole number from 1 to 14". */
function errorText(error: string): string {
  return error === "required" ? "Required" : `Must be ${error}`;
}

export interface FieldProps {
  field: FormField;
  id: string;
  value: FormDraft[string];
  error: string | null;
  disabled: boolean;
  autoFocus: boolean;
  onChange: (value: FormDraft[string]) => void;
  /** Whose schema the field is of: a tool's bounds every string generously, so its bounds say less of a text's length. */
  source?: FieldSource;
}

const INPUT_TYPES = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" } as const;

const control = (error: string | null) =>
  [
    "w-full rounded-lg border bg-white px-3 py-2 text-[15px] text-stone-900 outline-none placeholder:text-stone-400 disabled:opacity-60",
    error ? "border-red-400 focus:border-red-500 focus:ring-2 focus:ring-red-100" : "border-stone-300 focus:border-indigo-400 focus:ring-2 focus:ring-indigo-100",
  ].join(" ");

/** One labelled field: its input, its description, and its error right under it. */
/**
 * Errors show after Submit (then each follows its field as it changes), not when a field is left:
 * an error appearing under a field as focus moves to Submit would shift the button from under the click.
 */
export function FormFieldInput({ field, id, value, error, disabled, autoFocus, onChange, source = "form" }: FieldProps) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [field.description ? hintId : null, error ? errorId : null].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    name: field.name,
    disabled,
    required: field.required,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
    "data-testid": "form-input",
    "data-field": field.name,
    "data-autofocus": autoFocus ? "" : undefined,
  } as const;
  // Decided by the value it starts with: typing (or deleting) a line break does not swap the box under the cursor.
  const [long] = useState(() => takesLines(field, value, source));

  const help = (
    <>
      {field.description && (
        <p id={hintId} className="text-xs text-stone-500">
          {field.description}
        </p>
      )}
      {error && (
        <p id={errorId} data-testid="form-field-error" data-field={field.name} className="flex items-start gap-1 text-sm font-medium text-red-700">
          <svg aria-hidden viewBox="0 0 16 16" className="mt-0.5 h-3.5 w-3.5 shrink-0 fill-current">
            <path d="M8 1a7 7 0 1 0 0 14A7 7 0 0 0 8 1Zm-.75 3.5h1.5v4.75h-1.5V4.5Zm.75 7.75a1 1 0 1 1 0-2 1 1 0 0 1 0 2Z" />
          </svg>
          {errorText(error)}
        </p>
      )}
    </>
  );

  if (field.kind === "boolean") {
    return (
      <div data-testid="form-field" data-field={field.name} className="space-y-1 sm:col-span-2">
        <label
          htmlFor={id}
          className="inline-flex min-h-10 cursor-pointer items-center gap-3 rounded-lg pointer-coarse:min-h-11 border border-stone-200 bg-stone-50/60 px-3 py-2 text-sm font-medium text-stone-800 hover:bg-stone-50 has-focus-visible:ring-2 has-focus-visible:ring-indigo-500"
        >
          <input {...common} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} className="h-4 w-4 accent-indigo-600 outline-none" />
          {field.label}
        </label>
        {help}
      </div>
    );
  }

  if (field.kind === "multi") {
    const ticked = Array.isArray(value) ? value : [];
    const toggle = (choice: string, on: boolean) => onChange(on ? [...ticked, choice] : ticked.filter((v) => v !== choice));
    return (
      <fieldset data-testid="form-field" data-field={field.name} aria-invalid={error ? true : undefined} aria-describedby={describedBy} className="space-y-1 sm:col-span-2">
        <legend className="block text-sm font-medium text-stone-800">
          {field.label}
          {field.required && (
            <span aria-hidden className="ml-0.5 text-red-600">
              *
            </span>
          )}
        </legend>
        <div className="flex flex-wrap gap-2">
          {field.choices.map((c, i) => (
            <label
              key={c.value}
              className="inline-flex min-h-10 cursor-pointer items-center gap-2 rounded-lg border border-stone-200 pointer-coarse:min-h-11 bg-stone-50/60 px-3 py-2 text-sm text-stone-800 hover:bg-stone-50 has-focus-visible:ring-2 has-focus-visible:ring-indigo-500"
            >
              <input
                id={i === 0 ? id : undefined}
                name={field.name}
                type="checkbox"
                value={c.value}
                disabled={disabled}
                checked={ticked.includes(c.value)}
                onChange={(e) => toggle(c.value, e.target.checked)}
                data-testid="form-input"
                data-field={field.name}
                data-autofocus={autoFocus && i === 0 ? "" : undefined}
                className="h-4 w-4 accent-indigo-600 outline-none"
              />
              {c.title}
            </label>
          ))}
        </div>
        {help}
      </fieldset>
    );
  }

  let input: ReactNode;
  const text = typeof value === "string" ? value : "";
  if (field.kind === "choice") {
    input = (
      <select {...common} value={text} onChange={(e) => onChange(e.target.value)} className={`${control(error)} min-h-10 pr-8 pointer-coarse:min-h-11`}>
        <option value="">{field.required ? "Choose…" : "None"}</option>
        {field.choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.title}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === "number" || field.kind === "integer") {
    input = (
      <input
        {...common}
        type="number"
        inputMode={field.kind === "integer" ? "numeric" : "decimal"}
        step={field.kind === "integer" ? 1 : "any"}
        min={field.minimum ?? undefined}
        max={field.maximum ?? undefined}
        value={text}
        onChange={(e) => onChange(e.target.value)}
        className={`${control(error)} tabular-nums`}
      />
    );
  } else if (long) {
    input = <textarea {...common} rows={3} maxLength={field.maxLength ?? undefined} value={text} onChange={(e) => onChange(e.target.value)} className={`${control(error)} resize-y`} />;
  } else {
    input = (
      <input
        {...common}
        type={field.format ? INPUT_TYPES[field.format] : "text"}
        autoComplete={field.format === "email" ? "email" : "off"}
        placeholder={field.format === "uri" ? "https://" : field.format === "email" ? "name@example.com" : undefined}
        value={text}
        onChange={(e) => onChange(e.target.value)}
        className={control(error)}
      />
    );
  }

  return (
    <div data-testid="form-field" data-field={field.name} className={`space-y-1 ${long ? "sm:col-span-2" : ""}`}>
      <label htmlFor={id} className="block text-sm font-medium text-stone-800">
        {field.label}
        {field.required && (
          <span aria-hidden className="ml-0.5 text-red-600">
            *
          </span>
        )}
      </label>
      {input}
      {help}
    </div>
  );
}
