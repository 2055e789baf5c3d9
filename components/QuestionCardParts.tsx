"use client";

import { useEffect, useId, type KeyboardEvent as ReactKeyboardEvent, type ReactNode, type RefObject } from "react";
import type { Question } from "@/lib/protocol/question";
import { formatAnswer } from "@/lib/client/session-store";
import { wantsJson } from "@/lib/client/question-input";
import { ownerLabel } from "@/lib/client/approval";
import { describeFormAnswer, parseFormSchema } from "@/lib/protocol/forms";
import { formatCountdown, showsCountdown, useCountdown } from "@/lib/client/use-countdown";

/** The small pieces of the question card. */

export interface DeclineBarProps {
  open: boolean;
  onOpen: () => void;
  onCancel: () => void;
  text: string;
  onText: (text: string) => void;
  onDecline: () => void;
  busy: boolean;
  inputRef: RefObject<HTMLInputElement | null>;
  hint: string;
}

/** "Decline" first opens a short optional reason; Decline again (or Enter) sends it. */
export function DeclineBar({ open, onOpen, onCancel, text, onText, onDecline, busy, inputRef, hint }: DeclineBarProps) {
  const id = useId();
  useEffect(() => {
    if (open) inputRef.current?.focus();
  }, [open, inputRef]);

  const subtle =
    "shrink-0 rounded-md px-3 py-1 text-sm font-medium text-stone-700 hover:bg-stone-200/70 pointer-coarse:min-h-11 hover:text-stone-900 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600";
  return (
    <footer className="flex flex-wrap items-center gap-2 border-t border-stone-100 bg-stone-50/60 px-4 py-2">
      {open ? (
        <>
          <label htmlFor={id} className="sr-only">
            Reason for declining (optional)
          </label>
          <input
            id={id}
            ref={inputRef}
            data-testid="question-decline-message"
            value={text}
            disabled={busy}
            maxLength={500}
            onChange={(e) => onText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.nativeEvent.isComposing) {
                e.preventDefault();
                onDecline();
              }
            }}
            placeholder="Why not? (optional, the agent sees it)"
            className="min-w-0 flex-1 basis-full rounded-md border border-stone-300 bg-white px-2.5 py-1 text-sm sm:basis-0 pointer-coarse:min-h-11 text-stone-800 outline-none placeholder:text-stone-400 focus:border-indigo-400 focus:ring-2 focus:ring-indigo-100"
          />
          <button type="button" onClick={onCancel} disabled={busy} className={`${subtle} ml-auto sm:ml-0`}>
            Cancel
          </button>
          <button
            type="button"
            data-testid="question-decline"
            onClick={onDecline}
            disabled={busy}
            className="shrink-0 rounded-md bg-stone-800 px-3 py-1 text-sm font-medium text-white pointer-coarse:min-h-11 hover:bg-stone-700 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            Decline
          </button>
        </>
      ) : (
        <>
          <span data-testid="question-key-hint" className="hidden flex-1 text-xs text-stone-500 sm:block pointer-coarse:hidden">
            {hint}
          </span>
          <span className="flex-1 sm:hidden pointer-coarse:block" />
          <button type="button" data-testid="question-decline" onClick={onOpen} disabled={busy} aria-keyshortcuts="Escape" className={`${subtle} min-h-10 sm:min-h-0`}>
            Decline <Kbd>Esc</Kbd>
          </button>
        </>
      )}
    </footer>
  );
}

/** A question's default as a person reads it (a form's by its labels). */
function defaultText(question: Question): string {
  const form = question.replySchema ? parseFormSchema(question.replySchema) : null;
  return form?.ok ? describeFormAnswer(form.schema, question.default) : formatAnswer(question.default);
}

/**
 * The time left, shown only when it matters: under five minutes left, or a deadline the asker set
 * short (see `showsCountdown`). `after` says what happens at zero ("then denied"); a question's
 * default is shown otherwise.
 */
export function Countdown({ question, after }: { question: Question; after?: string }) {
  const left = useCountdown(question.expiresAt);
  if (left === null || !showsCountdown(question, left)) return null;
  return (
    <span className={`flex items-center gap-2 ${left <= 10 ? "text-red-700" : "text-amber-800"}`}>
      <svg aria-hidden viewBox="0 0 16 16" className="h-3.5 w-3.5 fill-none stroke-current" strokeWidth="1.6">
        <circle cx="8" cy="9" r="5.5" />
        <path d="M8 6v3l2 1.5M6.5 1.5h3" strokeLinecap="round" />
      </svg>
      <span data-testid="question-countdown" className="font-mono font-semibold tabular-nums" aria-label={`${left} seconds left`}>
        {formatCountdown(left)}
      </span>
      {after ? <span className="text-stone-500">{after}</span> : question.hasDefault && <span className="text-stone-500">default: {defaultText(question)}</span>}
    </span>
  );
}

/** "1 of 2" with real previous/next buttons (40px targets) when several questions wait. */
export function Position({ at, total, go }: { at: number; total: number; go: (delta: number) => void }) {
  const nav =
    "inline-flex h-10 w-10 items-center justify-center rounded-lg border border-indigo-200 pointer-coarse:size-11 bg-white text-lg leading-none text-indigo-800 shadow-sm hover:bg-indigo-100 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-600";
  return (
    <nav aria-label="Waiting questions" className="flex items-center gap-1.5 text-indigo-900">
      <button type="button" data-testid="question-previous" aria-label="Previous question" className={nav} onClick={() => go(-1)}>
        <span aria-hidden>‹</span>
      </button>
      <span data-testid="question-position" aria-live="polite" className="min-w-[3.5rem] text-center text-sm font-semibold tabular-nums">
        {at + 1} of {total}
      </span>
      <button type="button" data-testid="question-next" aria-label="Next question" className={nav} onClick={() => go(1)}>
        <span aria-hidden>›</span>
      </button>
    </nav>
  );
}

export interface CardHeaderProps {
  question: Question;
  /** What the owner does: "asks", "needs your confirmation", "asks you to fill in a form". */
  verb: string;
  position: { at: number; total: number; go: (delta: number) => void } | null;
}

/** Who asks, as a person reads it ("Order coffee asks"), the countdown when it matters, and "1 of 2". */
export function CardHeader({ question, verb, position }: CardHeaderProps) {
  return (
    <header className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-indigo-100 bg-indigo-50/70 px-4 py-2 text-sm">
      <span className="flex min-w-0 items-baseline gap-1.5">
        <span data-testid="question-owner" data-owner={question.owner} title={question.owner} className="truncate font-semibold text-indigo-950">
          {ownerLabel(question.owner)}
        </span>
        <span className="shrink-0 text-indigo-900/70">{verb}</span>
      </span>
      <span className="flex-1" />
      <span className="text-xs">
        <Countdown question={question} />
      </span>
      {position && <Position {...position} />}
    </header>
  );
}

interface ActionButtonProps {
  testId: string;
  children: ReactNode;
  onClick?: () => void;
  /** A form's submit button (Enter in a field presses it). */
  submit?: boolean;
  disabled?: boolean;
  primary?: boolean;
  hint?: string;
  option?: string;
  autoFocus?: boolean;
}

export function ActionButton({ testId, children, onClick, submit, disabled, primary, hint, option, autoFocus }: ActionButtonProps) {
  return (
    <button
      type={submit ? "submit" : "button"}
      data-testid={testId}
      data-option={option}
      data-autofocus={autoFocus ? "" : undefined}
      onClick={onClick}
      disabled={disabled}
      className={[
        "inline-flex min-h-10 items-center justify-center gap-2 rounded-lg px-3.5 py-2 text-sm font-medium shadow-sm transition-colors disabled:opacity-50 pointer-coarse:min-h-11 pointer-coarse:min-w-11",
        "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600",
        primary ? "bg-indigo-600 text-white hover:bg-indigo-500 disabled:hover:bg-indigo-600" : "border border-stone-300 bg-white text-stone-800 hover:border-indigo-300 hover:bg-indigo-50",
      ].join(" ")}
    >
      {children}
      {hint && <Kbd inverted={primary}>{hint}</Kbd>}
    </button>
  );
}

/** A key's hint. Its colours keep 4.5:1 on every fill of its row, hovered or selected (indigo-50, rose-50, a primary's indigo-500). */
export function Kbd({ children, inverted }: { children: ReactNode; inverted?: boolean }) {
  return (
    <kbd
      aria-hidden
      data-key-hint=""
      className={`rounded border px-1 font-sans text-[10px] leading-4 pointer-coarse:hidden ${inverted ? "border-indigo-300 text-white" : "border-stone-300 text-stone-600"}`}
    >
      {children}
    </kbd>
  );
}

interface TextRowProps {
  testId: string;
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  onEnter: () => void;
  disabled: boolean;
}

export function TextRow({ testId, label, placeholder, value, onChange, onEnter, disabled }: TextRowProps) {
  const id = useId();
  const onKeyDown = (e: ReactKeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Enter" && !e.nativeEvent.isComposing) {
      e.preventDefault();
      onEnter();
    }
  };
  return (
    <div>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <input
        id={id}
        data-testid={testId}
        value={value}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
        placeholder={placeholder}
        className="w-full rounded-lg border border-stone-300 px-3 py-2 text-sm outline-none focus:border-indigo-400 focus:ring-2 focus:ring-indigo-100"
      />
    </div>
  );
}

interface CheckboxGroupProps {
  options: string[];
  checked: string[];
  onToggle: (option: string) => void;
  disabled: boolean;
}

export function CheckboxGroup({ options, checked, onToggle, disabled }: CheckboxGroupProps) {
  return (
    <fieldset className="flex flex-wrap gap-2">
      <legend className="sr-only">Choose one or more</legend>
      {options.map((option, i) => {
        const on = checked.includes(option);
        return (
          <label
            key={option}
            className={`inline-flex min-h-10 cursor-pointer items-center gap-2 rounded-lg border px-3 py-2 text-sm pointer-coarse:min-h-11 has-focus-visible:ring-2 has-focus-visible:ring-indigo-500 ${
              on ? "border-indigo-400 bg-indigo-50 text-indigo-900" : "border-stone-300 bg-white text-stone-800 hover:bg-stone-50"
            }`}
          >
            <input
              type="checkbox"
              data-testid="question-checkbox"
              value={option}
              checked={on}
              onChange={() => onToggle(option)}
              disabled={disabled}
              className="h-4 w-4 accent-indigo-600 outline-none"
            />
            {option}
            {i < 9 && <Kbd>{i + 1}</Kbd>}
          </label>
        );
      })}
    </fieldset>
  );
}

interface FreeTextInputProps {
  value: string;
  onChange: (value: string) => void;
  onEnter: () => void;
  disabled: boolean;
  replySchema: Question["replySchema"];
}

/** The free-text answer; Enter sends, Shift+Enter adds a line. A JSON reply schema turns it into a JSON field. */
export function FreeTextInput({ value, onChange, onEnter, disabled, replySchema }: FreeTextInputProps) {
  const id = useId();
  const json = wantsJson({ replySchema });
  return (
    <div>
      <label htmlFor={id} className="sr-only">
        Your answer
      </label>
      <textarea
        id={id}
        data-testid="question-text-input"
        data-autofocus=""
        rows={2}
        value={value}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            onEnter();
          }
        }}
        placeholder={json ? "Answer as JSON…" : "Type your answer…"}
        className={`w-full resize-y rounded-lg border border-stone-300 px-3 py-2 text-[15px] outline-none focus:border-indigo-400 focus:ring-2 focus:ring-indigo-100 ${json ? "font-mono text-sm" : ""}`}
      />
      {json && (
        <details className="mt-1 text-xs text-stone-500">
          <summary className="cursor-pointer select-none pointer-coarse:py-3.5">Show the expected format</summary>
          <pre className="mt-1 max-h-40 overflow-auto rounded bg-stone-50 p-2 font-mono">{JSON.stringify(replySchema, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}

/** Why keys did nothing: typed while the card appeared, they were not for it (see use-card-keys.ts). */
export function KeyGuardNote({ note }: { note: string | null }) {
  return (
    <p data-testid="question-key-note" role="status" className={note ? "flex items-center gap-2 rounded-lg bg-sky-50 px-3 py-1.5 text-xs text-sky-900" : "sr-only"}>
      {note && (
        <svg aria-hidden viewBox="0 0 16 16" className="h-3.5 w-3.5 shrink-0 fill-none stroke-current" strokeWidth="1.5">
          <rect x="1.5" y="4" width="13" height="8.5" rx="1.5" />
          <path d="M4 7h1M7.5 7h1M11 7h1M5 9.8h6" strokeLinecap="round" />
        </svg>
      )}
      {note}
    </p>
  );
}

/** What went wrong with an answer (an error), or what happened to it (a late or stale notice). */
export function CardMessages({ error, notice }: { error: string | null; notice: string | null }) {
  return (
    <>
      {error && (
        <p data-testid="question-error" role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700">
          {error}
        </p>
      )}
      {notice && (
        <p data-testid="question-late" role="status" className="rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {notice}
        </p>
      )}
    </>
  );
}

/** "Back" out of a card's panel (the reject feedback, the Allow always choice, the editor) to its buttons. */
export function BackButton({ testId, onClick, disabled }: { testId: string; onClick: () => void; disabled: boolean }) {
  return (
    <button
      type="button"
      data-testid={testId}
      onClick={onClick}
      disabled={disabled}
      className="min-h-10 rounded-lg px-3.5 py-2 text-sm font-medium text-stone-700 hover:bg-stone-200/70 pointer-coarse:min-h-11 hover:text-stone-900 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
    >
      Back
    </button>
  );
}

/** The confirming button of a card's panel ("Allow and add the rule", "Allow once, edited"): a submit button when `onClick` is absent. */
export function PanelConfirm({ testId, onClick, disabled, children }: { testId: string; onClick?: () => void; disabled: boolean; children: ReactNode }) {
  return (
    <button
      type={onClick ? "button" : "submit"}
      data-testid={testId}
      onClick={onClick}
      disabled={disabled}
      className="min-h-10 rounded-lg bg-indigo-600 px-3.5 py-2 text-sm font-medium text-white pointer-coarse:min-h-11 shadow-sm hover:bg-indigo-500 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
    >
      {children}
    </button>
  );
}
