"use client";

import { useId } from "react";
import type { Question } from "@/lib/protocol/question";
import type { CardMode } from "@/lib/protocol/team-card";
import { questionAnchor } from "@/lib/protocol/question-notification";
import { inlineCode, previewShowsSubject, subjectLabel } from "@/lib/client/approval";
import { visibleString } from "@/lib/client/visible-text";
import { ApprovalPreview } from "@/components/ApprovalPreview";
import { CardHeader, CardMessages } from "@/components/QuestionCardParts";
import { TeamStatus } from "@/components/TeamStatus";
import { InlineCodeText, VisibleText } from "@/components/VisibleText";

interface ReadOnlyCardProps {
  question: Question;
  /** Why it cannot be answered here: it waits for other people, the viewer already voted, or who is viewing is not known yet. */
  mode: Exclude<CardMode, "answer">;
  me: string | null;
  position: { at: number; total: number; go: (delta: number) => void } | null;
  notice: string | null;
}

/**
 * A pending question the viewer may not answer (now): what is asked and, for an approval, what
 * would run, then whom it waits for or how far the votes are. It has no inputs, no buttons and no
 * keyboard: keys typed while it shows do nothing. The session still waits, so the chat input stays hidden.
 */
export function ReadOnlyCard({ question, mode, me, position, notice }: ReadOnlyCardProps) {
  const promptId = useId();
  const approval = question.kind === "approval" ? question.approval : null;
  const verb = approval ? `wants to run ${approval.tool}` : question.kind === "confirm" ? "asks for a confirmation" : "asks";
  return (
    <section
      id={questionAnchor(question.id)}
      data-testid="question-card"
      data-question-id={question.id}
      data-kind={approval ? "approval" : question.kind}
      data-mode={mode}
      data-readonly=""
      role="region"
      tabIndex={-1}
      aria-labelledby={promptId}
      className="mx-auto w-full max-w-3xl overflow-hidden rounded-2xl border border-stone-200 bg-white shadow-md shadow-stone-900/5 ring-4 ring-stone-100 outline-none focus-visible:ring-indigo-200"
    >
      <CardHeader question={question} verb={verb} position={position} />
      <div className="space-y-3 px-4 pb-4 pt-3">
        <h2 id={promptId} data-testid="question-prompt" className="whitespace-pre-wrap text-base font-medium text-stone-900 [overflow-wrap:anywhere]">
          {approval ? <InlineCodeText parts={inlineCode(question.prompt)} codeClass={CODE} /> : question.prompt}
        </h2>
        {question.detail && (
          <p data-testid="question-detail" className="max-h-48 overflow-auto whitespace-pre-wrap text-sm text-stone-600">
            <VisibleText text={question.detail} />
          </p>
        )}
        {approval && <ApprovalPreview preview={approval.preview} />}
        {approval && !previewShowsSubject(approval) && (
          <p className="flex min-w-0 items-baseline gap-2 text-xs text-stone-500">
            <span className="shrink-0 font-medium uppercase tracking-wide text-stone-500">{subjectLabel(approval.subjectKind)}</span>
            <code data-testid="approval-subject" title={visibleString(approval.subject)} className="min-w-0 whitespace-pre-wrap font-mono text-stone-700 [overflow-wrap:anywhere]">
              <VisibleText text={approval.subject} />
            </code>
          </p>
        )}
        <TeamStatus question={question} me={me} />
        <CardMessages error={null} notice={notice} />
      </div>
    </section>
  );
}

const CODE = "rounded bg-stone-100 px-1 py-0.5 font-mono text-[0.9em] text-stone-800";
