"use client";

import { Fragment, useId, useRef, useState, type ReactNode } from "react";
import type { JsonValue, Question } from "@/lib/protocol/question";
import { keyHint, multiAnswer, needsSubmit, numberKeyAction, textAnswer } from "@/lib/client/question-input";
import { ActionButton, CardHeader, CardMessages, CheckboxGroup, DeclineBar, FreeTextInput, KeyGuardNote, TextRow } from "@/components/QuestionCardParts";
import { ApprovalBody } from "@/components/ApprovalCard";
import { FormBody } from "@/components/FormCard";
import { useDecline } from "@/components/use-decline";
import { useSettle, type Settle } from "@/components/use-settle";
import { questionAnchor } from "@/lib/protocol/question-notification";
import { cardKindOf, type ByCardKind } from "@/lib/protocol/card-kinds";
import { cardMode } from "@/lib/protocol/team-card";
import { asOffered } from "@/lib/client/approval";
import { ReadOnlyCard } from "@/components/ReadOnlyCard";
import { useLinkedQuestion } from "@/lib/client/linked-question";

interface QuestionCardProps {
  /** Pending questions, oldest first. */
  questions: Question[];
  onReply: (question: Question, value: JsonValue, input?: Record<string, unknown>, until?: string) => Settle;
  onReject: (question: Question, message?: string) => Settle;
  /** "Already answered in another tab" and the like, shown for a moment. */
  notice?: string | null;
  /** Who is looking (null until known): a question for other people, or one they already voted on, shows read-only. */
  me: string | null;
}

export function QuestionCard({ questions, onReply, onReject, notice, me }: QuestionCardProps) {
  // Follow the question being looked at by id; when it goes away, stay at the same position.
  const [selected, setSelected] = useState({ id: "", index: 0 });
  // A notification's link shows its own question, once it is here, whichever is oldest; after
  // that the person's own choice stands until a new link comes.
  const linked = useLinkedQuestion();
  const [shownLink, setShownLink] = useState<string | null>(null);
  const linkedAt = linked === shownLink ? -1 : questions.findIndex((q) => q.id === linked);
  if (linkedAt >= 0) {
    setShownLink(linked);
    setSelected({ id: linked!, index: linkedAt });
  }
  const found = questions.findIndex((q) => q.id === selected.id);
  const at = found >= 0 ? found : Math.min(selected.index, questions.length - 1);
  const question = questions[at];
  if (!question) return null;

  const go = (delta: number) => {
    const index = (at + delta + questions.length) % questions.length;
    setSelected({ id: questions[index]!.id, index });
  };

  const position = questions.length > 1 ? { at, total: questions.length, go } : null;
  // Not the viewer's to answer (now): no inputs and no keys. Keyed apart, so becoming theirs mounts a fresh card with its key guard.
  const mode = cardMode(question, me);
  if (mode !== "answer") return <ReadOnlyCard key={`${question.id}:${mode}`} question={question} mode={mode} me={me} position={position} notice={notice ?? null} />;
  const body = BODIES[cardKindOf(question)]({ question, me, position, onReply, onReject, notice: notice ?? null });
  return <Fragment key={question.id}>{body}</Fragment>;
}

/** The body each card kind is shown with (a new kind: the type check names this table). */
const BODIES: ByCardKind<(props: BodyProps & { me: string | null }) => ReactNode> = {
  approval: ({ question, me, ...props }) => {
    const offered = asOffered(question);
    return offered.approval ? <ApprovalBody question={offered} me={me} {...props} /> : <QuestionBody question={question} {...props} />;
  },
  form: ({ me: _me, ...props }) => <FormBody {...props} />,
  choice: ({ me: _me, ...props }) => <QuestionBody {...props} />,
  multi_choice: ({ me: _me, ...props }) => <QuestionBody {...props} />,
  text: ({ me: _me, ...props }) => <QuestionBody {...props} />,
  confirm: ({ me: _me, ...props }) => <QuestionBody {...props} />,
};

interface BodyProps {
  question: Question;
  position: { at: number; total: number; go: (delta: number) => void } | null;
  onReply: QuestionCardProps["onReply"];
  onReject: QuestionCardProps["onReject"];
  notice: string | null;
}

function QuestionBody({ question, position, onReply, onReject, notice }: BodyProps) {
  const { busy, error, setError, settle } = useSettle("This question changed since it was shown. Check it and answer again.");
  const [checked, setChecked] = useState<string[]>([]);
  const [other, setOther] = useState("");
  const [text, setText] = useState("");
  const card = useRef<HTMLElement>(null);
  const promptId = useId();

  const { kind, options, multi, allowCustom } = question;
  const isChoice = kind === "question" && options.length > 0;

  const reply = (value: JsonValue) => settle(() => onReply(question, value));
  const replyText = () => {
    const answer = textAnswer(question, text);
    if (answer.ok) void reply(answer.value);
    else setError(answer.error);
  };

  const toggle = (option: string) => setChecked((list) => (list.includes(option) ? list.filter((o) => o !== option) : [...list, option]));
  const multiValue = multiAnswer(options, checked, other);

  /** Submit sends the ticked options, the free text, or the "Other" text. */
  const canSubmit = multi ? multiValue.length > 0 : (options.length === 0 ? text : other).trim() !== "";
  const submit = () => {
    if (busy || !canSubmit) return;
    if (multi) void reply(multiValue);
    else if (options.length === 0) replyText();
    else void reply(other.trim());
  };

  // A key pressed while the answer is on its way does nothing: the next question's card guards its own keys.
  const pick = (n: number) => {
    const action = busy ? null : numberKeyAction(question, n);
    if (action?.type === "reply") void reply(action.value);
    if (action?.type === "toggle") toggle(action.option);
  };
  const { bar: declineBar, keys } = useDecline({ card, pick, submit: needsSubmit(question) ? submit : undefined, maxDigit: 9, onDecline: (message) => settle(() => onReject(question, message)) });

  return (
    <section
      ref={card}
      id={questionAnchor(question.id)}
      data-testid="question-card"
      data-question-id={question.id}
      data-kind={kind}
      data-keys={keys.state}
      role="region"
      tabIndex={-1}
      aria-labelledby={promptId}
      aria-busy={busy}
      className="mx-auto w-full max-w-3xl overflow-hidden rounded-2xl border border-indigo-200 bg-white shadow-lg shadow-indigo-900/5 ring-4 ring-indigo-50 outline-none focus-visible:ring-indigo-200"
    >
      <CardHeader question={question} verb={kind === "confirm" ? "needs your confirmation" : "asks"} position={position} />

      <div className="space-y-3 px-4 pb-3 pt-3">
        <h2 id={promptId} data-testid="question-prompt" className="whitespace-pre-wrap text-base font-medium text-stone-900">
          {question.prompt}
        </h2>
        {question.detail && (
          <pre
            data-testid="question-detail"
            tabIndex={0}
            aria-label="Details"
            className="max-h-48 overflow-auto whitespace-pre-wrap rounded-lg border border-stone-200 bg-stone-50 px-3 py-2 font-sans text-sm leading-relaxed text-stone-700 outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
          >
            {question.detail}
          </pre>
        )}

        {kind === "confirm" && (
          <div className="flex flex-wrap gap-2">
            <ActionButton testId="confirm-yes" primary hint="1" disabled={busy} onClick={() => void reply(true)}>
              Yes
            </ActionButton>
            <ActionButton testId="confirm-no" hint="2" disabled={busy} onClick={() => void reply(false)}>
              No
            </ActionButton>
          </div>
        )}

        {isChoice && !multi && (
          <div role="group" aria-label="Options" className="flex flex-wrap gap-2">
            {options.map((option, i) => (
              <ActionButton key={option} testId="question-option" option={option} hint={i < 9 ? String(i + 1) : undefined} disabled={busy} onClick={() => void reply(option)}>
                {option}
              </ActionButton>
            ))}
          </div>
        )}

        {isChoice && multi && <CheckboxGroup options={options} checked={checked} onToggle={toggle} disabled={busy} />}

        {isChoice && allowCustom && (
          <TextRow
            testId="question-other-input"
            label={multi ? "Other (added to your choices)" : "Other…"}
            placeholder={multi ? "Other… (added to your choices)" : "Other…"}
            value={other}
            onChange={setOther}
            onEnter={submit}
            disabled={busy}
          />
        )}

        {kind === "question" && options.length === 0 && <FreeTextInput value={text} onChange={setText} onEnter={submit} disabled={busy} replySchema={question.replySchema} />}

        {needsSubmit(question) && (
          <div className="flex justify-end">
            <ActionButton testId="question-submit" primary disabled={busy || !canSubmit} onClick={submit}>
              {busy ? "Sending…" : "Submit"}
            </ActionButton>
          </div>
        )}

        <KeyGuardNote note={keys.note} />
        <CardMessages error={error} notice={notice} />
      </div>

      <DeclineBar {...declineBar} busy={busy} hint={keyHint(question)} />
    </section>
  );
}
