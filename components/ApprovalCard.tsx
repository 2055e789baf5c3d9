"use client";

import { useEffect, useId, useRef, useState } from "react";
import type { JsonValue, Question } from "@/lib/protocol/question";
import {
  alwaysAnswer,
  alwaysChoiceHint,
  GRANT_LENGTHS,
  grantUntil,
  type GrantLength,
  fallbackText,
  hiddenCharactersWarning,
  inlineCode,
  ownerLabel,
  previewShowsSubject,
  promptShortened,
  subjectLabel,
} from "@/lib/client/approval";
import { visibleString } from "@/lib/client/visible-text";
import { APPROVAL_KEYS, keyHint, numberKeyAction } from "@/lib/client/question-input";
import { ApprovalPreview } from "@/components/ApprovalPreview";
import { BackButton, CardMessages, Countdown, Kbd, KeyGuardNote, PanelConfirm, Position } from "@/components/QuestionCardParts";
import { InlineCodeText, VisibleText } from "@/components/VisibleText";
import { useCardKeys } from "@/components/use-card-keys";
import { useSettle, type Settle } from "@/components/use-settle";
import { questionAnchor } from "@/lib/protocol/question-notification";
import { TeamStatus } from "@/components/TeamStatus";
import { ApprovalEditor } from "@/components/ApprovalEditor";

interface ApprovalBodyProps {
  question: Question;
  /** Who is answering: an approval that needs several people shows its count. */
  me: string | null;
  position: { at: number; total: number; go: (delta: number) => void } | null;
  onReply: (question: Question, value: JsonValue, input?: Record<string, unknown>, until?: string) => Settle;
  onReject: (question: Question, message?: string) => Settle;
  notice: string | null;
}

/**
 * The card of an approval: who asks to run which tool, a preview of all of its input, and Allow
 * once, Allow always (a session rule: exactly this call, or a wider rule the person picks when the
 * tool offers one), Edit and allow, or Reject with optional feedback. Keys (APPROVAL_KEYS, in the
 * buttons' order): 1 / 2 / 3 / 4, Escape opens (or leaves) the feedback field, Enter in it rejects;
 * the card never starts focused on an answer.
 */
export function ApprovalBody({ question, me, position, onReply, onReject, notice }: ApprovalBodyProps) {
  const approval = question.approval!;
  const { busy, error, settle } = useSettle("This request changed since it was shown. Check it and answer again.");
  const [rejectOpen, setRejectOpen] = useState(false);
  /** The "Allow always" choice between exactly this call (0) and the wider rule (1); null while closed. */
  const [alwaysChoice, setAlwaysChoice] = useState<0 | 1 | null>(null);
  /** "Edit and allow": the tool's input in an editor. */
  const [editing, setEditing] = useState(false);
  const [feedback, setFeedback] = useState("");
  /** How long an "Allow always" rule lasts. */
  const [length, setLength] = useState<GrantLength>("good");
  const card = useRef<HTMLElement>(null);
  const feedbackInput = useRef<HTMLTextAreaElement>(null);
  const titleId = useId();
  const hintId = useId();
  const feedbackId = useId();
  const promptId = useId();

  const allow = (value: "once" | "always" | "always_wider") => settle(() => onReply(question, value, undefined, value === "once" ? undefined : grantUntil(length)));
  const allowEdited = (input: Record<string, unknown>) => settle(() => onReply(question, "once", input));
  const offered = approval.always.length;
  const editable = !!approval.edit;
  const allowAlways = () => {
    if (offered > 1) setAlwaysChoice(0);
    else if (offered === 1) void allow("always");
  };
  const reject = () => settle(() => onReject(question, feedback.trim() || undefined));

  const closeReject = () => {
    setRejectOpen(false);
    keys.focusFirst();
  };
  const closeAlways = () => {
    setAlwaysChoice(null);
    keys.focusFirst();
  };
  const closeEditor = () => {
    setEditing(false);
    keys.focusFirst();
  };

  const pick = (n: number) => {
    if (busy || rejectOpen || editing) return;
    // In the "Allow always" choice, 1 and 2 pick its options; 3 (Edit) and 4 (Reject) still work.
    if (alwaysChoice !== null && (n === 0 || n === 1)) return setAlwaysChoice(n === 1 && offered > 1 ? 1 : 0);
    const action = numberKeyAction(question, n);
    if (action?.type === "reply" && action.value === "always") allowAlways();
    else if (action?.type === "reply") void allow("once");
    if (action?.type === "reject") {
      setAlwaysChoice(null);
      setRejectOpen(true);
    }
    if (action?.type === "edit" && editable) {
      setAlwaysChoice(null);
      setEditing(true);
    }
  };
  const escape = (target: HTMLElement) => {
    if (target === feedbackInput.current) closeReject();
    else if (rejectOpen) feedbackInput.current?.focus();
    else if (alwaysChoice !== null) closeAlways();
    else if (editing) closeEditor();
    else setRejectOpen(true);
  };

  const keys = useCardKeys(card, { pick, escape }, APPROVAL_KEYS.reject);

  useEffect(() => {
    if (rejectOpen) feedbackInput.current?.focus();
  }, [rejectOpen]);

  const owner = ownerLabel(question.owner);
  const dangerous = approval.dangerous;
  const accent = dangerous
    ? { card: "border-amber-300 ring-amber-50", header: "border-amber-200/80 bg-amber-50", owner: "bg-amber-100 text-amber-900", text: "text-amber-950/70" }
    : { card: "border-indigo-200 ring-indigo-50", header: "border-indigo-100 bg-indigo-50/70", owner: "bg-indigo-100 text-indigo-800", text: "text-indigo-900/70" };
  const showPrompt = question.prompt.trim() !== "";
  const shortened = showPrompt && promptShortened(question.prompt, approval.subject);
  const hidden = hiddenCharactersWarning(approval, question.prompt);
  const alwaysText = alwaysChoiceHint(approval);

  return (
    <section
      ref={card}
      id={questionAnchor(question.id)}
      data-testid="question-card"
      data-question-id={question.id}
      data-kind="approval"
      data-tool={approval.tool}
      data-dangerous={dangerous ? "" : undefined}
      data-keys={keys.state}
      role="region"
      tabIndex={-1}
      aria-labelledby={titleId}
      aria-describedby={showPrompt ? promptId : undefined}
      aria-busy={busy}
      className={`mx-auto w-full max-w-3xl overflow-hidden rounded-2xl border bg-white shadow-lg shadow-stone-900/5 ring-4 outline-none focus-visible:ring-indigo-200 ${accent.card}`}
    >
      <header className={`flex flex-wrap items-center gap-x-3 gap-y-1 border-b px-4 py-2 text-xs ${accent.header}`}>
        <span id={titleId} data-testid="approval-title" className={`flex min-w-0 flex-wrap items-center gap-x-1.5 gap-y-1 font-medium ${accent.text}`}>
          <span data-testid="question-owner" title={question.owner} className={`rounded px-1.5 py-0.5 font-semibold ${accent.owner}`}>
            {owner}
          </span>
          <span>wants to run</span>
          <code data-testid="approval-tool" className="rounded border border-stone-300/80 bg-white px-1.5 py-0.5 font-mono font-semibold text-stone-800">
            {approval.tool}
          </code>
        </span>
        {dangerous && (
          <span data-testid="approval-dangerous" className="inline-flex items-center gap-1 font-medium text-amber-800" title="This tool can change things outside the chat">
            <WarningIcon className="h-3.5 w-3.5 stroke-current" />
            {/* On a phone the icon alone (the header's colour says the rest): the countdown and position keep one line. */}
            <span className="sr-only sm:not-sr-only">can change things</span>
          </span>
        )}
        <span className="flex-1" />
        <Countdown question={question} after={fallbackText(approval.fallback)} />
        {position && <Position {...position} />}
      </header>

      <div className="space-y-3 px-4 pb-3 pt-3">
        {showPrompt && (
          <div>
            <h2 id={promptId} data-testid="question-prompt" className="whitespace-pre-wrap text-base font-medium text-stone-900 [overflow-wrap:anywhere]">
              <InlineCodeText parts={inlineCode(question.prompt)} codeClass={CODE} />
            </h2>
            {shortened && (
              <p data-testid="approval-prompt-shortened" className="mt-0.5 text-xs text-stone-500">
                Shortened above; the whole {approval.subjectKind === "path" ? "path" : "command"}, exactly as it will run, is below.
              </p>
            )}
          </div>
        )}
        {question.detail && (
          <p data-testid="question-detail" className="whitespace-pre-wrap text-sm text-stone-600">
            <VisibleText text={question.detail} />
          </p>
        )}

        {hidden && (
          <p data-testid="approval-hidden-warning" role="note" className="flex items-start gap-2 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950">
            <WarningIcon className="mt-0.5 h-4 w-4 shrink-0 stroke-amber-700" />
            <span>
              <span className="block font-medium">{hidden}</span>
              <span className="block text-xs text-amber-900/80">Characters that reorder text or do not show are labelled here, not applied.</span>
            </span>
          </p>
        )}

        <ApprovalPreview preview={approval.preview} />

        {!previewShowsSubject(approval) && (
          <p className="flex min-w-0 items-baseline gap-2 text-xs text-stone-500">
            <span className="shrink-0 font-medium uppercase tracking-wide text-stone-500">{subjectLabel(approval.subjectKind)}</span>
            <code data-testid="approval-subject" title={visibleString(approval.subject)} className="min-w-0 whitespace-pre-wrap font-mono text-stone-700 [overflow-wrap:anywhere]">
              <VisibleText text={approval.subject} />
            </code>
          </p>
        )}

        <TeamStatus question={question} me={me} />

        {rejectOpen ? (
          <div className="space-y-2 rounded-xl border border-stone-200 bg-stone-50 p-3">
            <label htmlFor={feedbackId} className="block text-sm font-medium text-stone-800">
              Tell the agent what to do instead <span className="font-normal text-stone-500">(optional)</span>
            </label>
            <textarea
              id={feedbackId}
              ref={feedbackInput}
              data-testid="approval-reject-message"
              rows={2}
              value={feedback}
              disabled={busy}
              maxLength={2000}
              onChange={(e) => setFeedback(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                  e.preventDefault();
                  void reject();
                }
              }}
              placeholder="Tell the agent what to do instead"
              className="w-full resize-y rounded-lg border border-stone-300 bg-white px-3 py-2 text-[15px] outline-none placeholder:text-stone-400 focus:border-indigo-400 focus:ring-2 focus:ring-indigo-100"
            />
            <div className="flex items-center justify-end gap-2">
              <span className="mr-auto hidden text-xs text-stone-500 sm:inline pointer-coarse:hidden">Enter to reject · Esc to go back</span>
              <BackButton testId="approval-reject-cancel" onClick={closeReject} disabled={busy} />
              <button
                type="button"
                data-testid="approval-reject-confirm"
                onClick={() => void reject()}
                disabled={busy}
                className="min-h-10 rounded-lg bg-rose-700 px-3.5 py-2 text-sm pointer-coarse:min-h-11 font-medium text-white shadow-sm hover:bg-rose-600 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-rose-700"
              >
                {busy ? "Rejecting…" : "Reject"}
              </button>
            </div>
          </div>
        ) : editing ? (
          <ApprovalEditor approval={approval} busy={busy} onAllow={(input) => void allowEdited(input)} onBack={closeEditor} />
        ) : alwaysChoice !== null ? (
          <AlwaysChoice
            approval={approval}
            choice={alwaysChoice}
            onChoose={setAlwaysChoice}
            length={length}
            onLength={setLength}
            onConfirm={() => void allow(alwaysAnswer(alwaysChoice))}
            onBack={closeAlways}
            busy={busy}
          />
        ) : (
          <div>
            <div role="group" aria-label="Answers" className="grid grid-cols-2 gap-2 sm:flex sm:flex-wrap">
              <AnswerButton testId="approval-allow-once" primary hint={`${APPROVAL_KEYS.once}`} disabled={busy} onClick={() => void allow("once")}>
                Allow once
              </AnswerButton>
              {offered > 0 && (
                <AnswerButton testId="approval-allow-always" hint={`${APPROVAL_KEYS.always}`} describedBy={hintId} disabled={busy} onClick={allowAlways} expands={offered > 1}>
                  {offered > 1 ? "Allow always…" : "Allow always"}
                </AnswerButton>
              )}
              {editable && (
                <AnswerButton testId="approval-edit" hint={`${APPROVAL_KEYS.edit}`} disabled={busy} onClick={() => setEditing(true)} expands>
                  Edit and allow…
                </AnswerButton>
              )}
              <AnswerButton
                testId="approval-reject"
                hint={`${APPROVAL_KEYS.reject}`}
                danger
                disabled={busy}
                onClick={() => setRejectOpen(true)}
                className={(offered > 0 ? 1 : 0) + (editable ? 1 : 0) === 1 ? "col-span-2 sm:ml-auto" : "sm:ml-auto"}
              >
                Reject…
              </AnswerButton>
            </div>
            {alwaysText && (
              <div className="mt-2 flex flex-wrap items-baseline gap-x-3 gap-y-1 text-xs text-stone-500">
                <p id={hintId} data-testid="approval-always-hint" className="w-full min-w-0 sm:w-auto sm:flex-1">
                  <span className="font-medium text-stone-600">Allow always:</span> <InlineCodeText parts={inlineCode(alwaysText)} codeClass={CODE_SMALL} />
                </p>
                <GrantLengthSelect value={length} onChange={setLength} disabled={busy} />
              </div>
            )}
          </div>
        )}

        <KeyGuardNote note={keys.note} />
        <CardMessages error={error} notice={notice} />
      </div>

      <footer className="hidden items-center gap-2 border-t border-stone-100 bg-stone-50/60 px-4 py-2 text-xs text-stone-500 sm:flex pointer-coarse:hidden">
        <span className="flex-1">{alwaysChoice !== null ? "1 / 2 choose · Enter adds the rule · Esc back" : editing ? "Esc back to the answers" : keyHint(question)}</span>
        <span>
          <Kbd>Esc</Kbd> feedback
        </span>
      </footer>
    </section>
  );
}

interface AnswerButtonProps {
  testId: string;
  children: React.ReactNode;
  onClick: () => void;
  disabled?: boolean;
  primary?: boolean;
  danger?: boolean;
  hint: string;
  describedBy?: string;
  /** Opens a choice instead of answering. */
  expands?: boolean;
  className?: string;
}

function AnswerButton({ testId, children, onClick, disabled, primary, danger, hint, describedBy, expands, className = "" }: AnswerButtonProps) {
  return (
    <button
      type="button"
      data-testid={testId}
      aria-haspopup={expands ? "true" : undefined}
      aria-describedby={describedBy}
      aria-keyshortcuts={hint}
      onClick={onClick}
      disabled={disabled}
      className={[
        "inline-flex min-h-10 items-center justify-center gap-2 rounded-lg px-3.5 py-2 text-sm font-medium shadow-sm transition-colors disabled:opacity-50 pointer-coarse:min-h-11",
        "focus-visible:outline-2 focus-visible:outline-offset-2",
        primary
          ? "bg-indigo-600 text-white hover:bg-indigo-500 focus-visible:outline-indigo-600 disabled:hover:bg-indigo-600"
          : danger
            ? "border border-stone-300 bg-white text-rose-700 hover:border-rose-300 hover:bg-rose-50 focus-visible:outline-rose-600"
            : "border border-stone-300 bg-white text-stone-800 hover:border-indigo-300 hover:bg-indigo-50 focus-visible:outline-indigo-600",
        className,
      ].join(" ")}
    >
      {children}
      <Kbd inverted={primary}>{hint}</Kbd>
    </button>
  );
}

const CODE = "rounded bg-stone-100 px-1 py-0.5 font-mono text-[0.9em] text-stone-800";
const CODE_SMALL = "rounded bg-stone-100 px-1 font-mono text-[0.95em] text-stone-700";

interface AlwaysChoiceProps {
  approval: Question["approval"] & object;
  choice: 0 | 1;
  onChoose: (which: 0 | 1) => void;
  length: GrantLength;
  onLength: (length: GrantLength) => void;
  onConfirm: () => void;
  onBack: () => void;
  busy: boolean;
}

/** "Allow always" with two rules on offer: exactly this call (chosen first) or the wider rule, then a confirm. */
function AlwaysChoice({ approval, choice, onChoose, length, onLength, onConfirm, onBack, busy }: AlwaysChoiceProps) {
  const legendId = useId();
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const options = approval.always.slice(0, 2);
  return (
    <div data-testid="approval-always-choice" role="radiogroup" aria-labelledby={legendId} className="space-y-2 rounded-xl border border-indigo-200 bg-indigo-50/40 p-3">
      <p id={legendId} className="text-sm font-medium text-stone-800">
        Allow <code className={CODE}>{approval.tool}</code> without asking again in this chat, for:
      </p>
      {options.map((option, i) => {
        const which = i as 0 | 1;
        const on = choice === which;
        return (
          <label
            key={which}
            data-testid="approval-always-option"
            data-which={which === 0 ? "exact" : "wider"}
            data-checked={on ? "" : undefined}
            className={`flex min-h-10 cursor-pointer items-start gap-3 pointer-coarse:min-h-11 rounded-lg border px-3 py-2 text-sm has-focus-visible:ring-2 has-focus-visible:ring-indigo-500 ${
              on ? "border-indigo-400 bg-white text-indigo-950 shadow-sm" : "border-stone-200 bg-white/60 text-stone-700 hover:bg-white"
            }`}
          >
            <input
              ref={which === 0 ? first : undefined}
              type="radio"
              name={`always-${legendId}`}
              checked={on}
              disabled={busy}
              onChange={() => onChoose(which)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.nativeEvent.isComposing) {
                  e.preventDefault();
                  onConfirm();
                }
              }}
              className="mt-0.5 h-4 w-4 shrink-0 accent-indigo-600 outline-none"
            />
            <span className="min-w-0 flex-1 [overflow-wrap:anywhere]">
              <InlineCodeText parts={inlineCode(option.label)} codeClass={CODE} />
              <span className="mt-0.5 block text-xs text-stone-500">
                {which === 0 ? "Only this exact call" : "A wider rule"}
                {option.cwd && option.cwd !== "." ? (
                  <>
                    {" "}
                    · in <VisibleText text={option.cwd} />
                  </>
                ) : null}
              </span>
            </span>
            <Kbd>{which + 1}</Kbd>
          </label>
        );
      })}
      <div className="flex flex-wrap items-center justify-end gap-2 pt-1">
        <span className="mr-auto text-xs text-stone-600">
          <GrantLengthSelect value={length} onChange={onLength} disabled={busy} />
        </span>
        <BackButton testId="approval-always-back" onClick={onBack} disabled={busy} />
        <PanelConfirm testId="approval-always-confirm" onClick={onConfirm} disabled={busy}>
          {busy ? "Allowing…" : "Allow and add the rule"}
        </PanelConfirm>
      </div>
    </div>
  );
}

/** How long an "Allow always" rule lasts: for good (the default), an hour, or until the end of today. */
function GrantLengthSelect({ value, onChange, disabled }: { value: GrantLength; onChange: (length: GrantLength) => void; disabled: boolean }) {
  return (
    <label className="inline-flex shrink-0 items-center gap-1.5">
      <span>Rule lasts</span>
      <select
        data-testid="approval-always-length"
        value={value}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value as GrantLength)}
        className="rounded-md border border-stone-300 bg-white py-0.5 pr-6 pl-1.5 text-xs text-stone-800 pointer-coarse:min-h-11 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-600"
      >
        {GRANT_LENGTHS.map((g) => (
          <option key={g.id} value={g.id}>
            {g.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The warning triangle of a dangerous tool and of hidden characters. */
function WarningIcon({ className }: { className: string }) {
  return (
    <svg aria-hidden viewBox="0 0 16 16" className={`fill-none ${className}`} strokeWidth="1.6">
      <path d="M8 1.8 15 14H1z" strokeLinejoin="round" />
      <path d="M8 6.2v3.6" strokeLinecap="round" />
      <circle cx="8" cy="11.8" r=".5" className="fill-current" />
    </svg>
  );
}
