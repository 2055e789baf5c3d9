"use client";

import { memo, useState } from "react";
import type { Question } from "@/lib/protocol/question";
import { auditOf, type QuestionAudit } from "@/lib/client/question-audit";
import { decidedByLine } from "@/lib/protocol/team-card";
import { useNameOf } from "@/lib/client/use-names";
import { ToolCallDetails } from "./ToolCallDetails";
import { VisibleText } from "./VisibleText";

const TONE_STYLE: Record<QuestionAudit["tone"], string> = {
  allowed: "text-emerald-700",
  denied: "text-rose-700",
  timeout: "text-amber-700",
  neutral: "text-stone-600",
};

/**
 * A closed question or approval: what was asked, how it ended, who settled it from where (or the
 * rule that did) and when. An approval is a tool call: its row expands (the chevron) to the tool's
 * input and result. `viewer` is the person reading: their own answers read "by you".
 */
export const QuestionRecord = memo(function QuestionRecord({ question, viewer = null }: { question: Question; viewer?: string | null }) {
  const nameOf = useNameOf();
  const audit = auditOf(question, { viewer, nameOf });
  const approval = audit.tool !== null;
  // An approval that needed several people: who approved it (or rejected it), from its votes.
  const decidedBy = decidedByLine(question, viewer, nameOf);
  const [open, setOpen] = useState(false);
  return (
    <li
      data-testid="question-record"
      data-status={question.status}
      data-kind={question.kind}
      data-closed-by={question.closedBy ?? undefined}
      data-closed-by-user={question.closedByUser ?? undefined}
      data-question-id={question.id}
      className="ml-9 flex max-w-[85%] items-start gap-2 self-start rounded-lg bg-stone-100 px-3 py-1.5 text-sm text-stone-600"
    >
      {approval ? <ApprovalIcon tone={audit.tone} /> : <QuestionIcon />}
      <span className="min-w-0 flex-1 [overflow-wrap:anywhere]">
        {approval ? (
          <span data-testid="question-record-asked" className="text-stone-700">
            <span className="text-stone-600">{audit.owner}:</span> <code className="rounded bg-white/80 px-1 font-mono text-[13px] font-medium text-stone-800">{audit.tool}</code>{" "}
            <code className="font-mono text-[13px] text-stone-700">
              <VisibleText text={audit.subject ?? ""} />
            </code>
          </span>
        ) : (
          <span data-testid="question-record-asked" className="text-stone-700">
            {question.prompt}
          </span>
        )}{" "}
        <span aria-hidden className="text-stone-400">
          →
        </span>{" "}
        <span data-testid="question-record-outcome" className={`font-medium ${TONE_STYLE[audit.tone]}`}>
          {audit.outcome}
        </span>
        {audit.via && (
          <>
            <span aria-hidden className="text-stone-300">
              {" "}
              ·{" "}
            </span>
            <span data-testid="question-record-via" className="text-stone-600">
              {audit.via}
            </span>
          </>
        )}
        {decidedBy && (
          <>
            <span aria-hidden className="text-stone-300">
              {" "}
              ·{" "}
            </span>
            <span data-testid="question-record-votes" className="text-stone-600">
              {decidedBy}
            </span>
          </>
        )}
        {audit.when && (
          <>
            <span aria-hidden className="text-stone-300">
              {" "}
              ·{" "}
            </span>
            <time data-testid="question-record-when" dateTime={question.closedAt ?? undefined} title={audit.whenFull ?? undefined} className="whitespace-nowrap text-xs text-stone-600">
              {audit.when}
            </time>
          </>
        )}
        {approval && open && <ToolCallDetails question={question} />}
      </span>
      {approval && (
        <button
          type="button"
          data-testid="tool-call-toggle"
          aria-expanded={open}
          aria-label={`${open ? "Hide" : "Show"} the input and result of ${audit.tool}`}
          onClick={() => setOpen((o) => !o)}
          className="-mr-1 flex h-6 w-6 shrink-0 items-center justify-center rounded text-stone-600 pointer-coarse:-my-2.5 pointer-coarse:-mr-3 pointer-coarse:size-11 hover:bg-stone-200 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
        >
          <svg aria-hidden viewBox="0 0 12 12" className={`h-3 w-3 transition-transform ${open ? "rotate-180" : ""}`}>
            <path d="m2.5 4.5 3.5 3.5 3.5-3.5" className="fill-none stroke-current" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
        </button>
      )}
    </li>
  );
});

function QuestionIcon() {
  return (
    <svg aria-hidden viewBox="0 0 16 16" className="mt-0.5 h-4 w-4 shrink-0">
      <circle cx="8" cy="8" r="8" className="fill-indigo-100" />
      <path d="M6.2 6.2a1.9 1.9 0 1 1 2.6 1.8c-.5.2-.8.6-.8 1.1v.4" className="fill-none stroke-indigo-700" strokeWidth="1.5" strokeLinecap="round" />
      <circle cx="8" cy="11.6" r=".9" className="fill-indigo-700" />
    </svg>
  );
}

const SHIELD_STYLE: Record<QuestionAudit["tone"], [string, string]> = {
  allowed: ["fill-emerald-100", "stroke-emerald-700"],
  denied: ["fill-rose-100", "stroke-rose-700"],
  timeout: ["fill-amber-100", "stroke-amber-700"],
  neutral: ["fill-stone-200", "stroke-stone-500"],
};

function ApprovalIcon({ tone }: { tone: QuestionAudit["tone"] }) {
  const [fill, stroke] = SHIELD_STYLE[tone];
  return (
    <svg aria-hidden viewBox="0 0 16 16" className="mt-0.5 h-4 w-4 shrink-0">
      <path d="M8 .8 14.2 3v4.6c0 3.6-2.6 6.4-6.2 7.6C4.4 14 1.8 11.2 1.8 7.6V3z" className={fill} />
      {tone === "allowed" ? (
        <path d="m5.3 8.1 1.9 1.9 3.6-3.8" className={`fill-none ${stroke}`} strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
      ) : tone === "denied" ? (
        <path d="m5.8 5.8 4.4 4.4m0-4.4-4.4 4.4" className={`fill-none ${stroke}`} strokeWidth="1.6" strokeLinecap="round" />
      ) : (
        <path d="M8 4.8V8.4l2 1.2" className={`fill-none ${stroke}`} strokeWidth="1.6" strokeLinecap="round" />
      )}
    </svg>
  );
}
