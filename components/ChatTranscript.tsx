"use client";

import { useEffect, useLayoutEffect, useRef } from "react";
import type { Message } from "@/lib/protocol/entities";
import type { Question } from "@/lib/protocol/question";
import { auditOf, type QuestionAudit } from "@/lib/client/question-audit";
import type { TranscriptItem } from "@/lib/client/session-store";

interface ChatTranscriptProps {
  items: TranscriptItem[];
  loading: boolean;
}

const EMPTY_HINT = "Say hello, ask what I can do, or type /help for the demo commands (/deploy, /coffee, /pizza …)";

export function ChatTranscript({ items, loading }: ChatTranscriptProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);

  // Follow new items while the reader is at the bottom; leave them alone when they scrolled up.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stuck.current) el.scrollTop = el.scrollHeight;
  }, [items]);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => (stuck.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80);
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => el.removeEventListener("scroll", onScroll);
  }, []);

  return (
    <div ref={scroller} className="min-h-0 flex-1 overflow-y-auto">
      <ol data-testid="message-list" aria-label="Messages" className="mx-auto flex max-w-3xl flex-col gap-3 px-4 py-6">
        {items.map((item) =>
          item.type === "message" ? (
            <MessageItem key={item.message.id} message={item.message} />
          ) : (
            <QuestionRecord key={item.question.id} question={item.question} />
          ),
        )}
      </ol>
      {items.length === 0 && (
        <div className="mx-auto flex max-w-md flex-col items-center px-6 pt-16 text-center">
          {loading ? (
            <p className="text-sm text-stone-400">Loading…</p>
          ) : (
            <>
              <svg aria-hidden viewBox="0 0 48 48" className="mb-4 h-12 w-12">
                <rect x="4" y="8" width="32" height="24" rx="8" className="fill-indigo-100" />
                <path d="M12 32v7l8-7" className="fill-indigo-100" />
                <rect x="16" y="18" width="28" height="20" rx="7" className="fill-indigo-600" />
                <circle cx="24" cy="28" r="2" className="fill-white" />
                <circle cx="30" cy="28" r="2" className="fill-white" />
                <circle cx="36" cy="28" r="2" className="fill-amber-300" />
              </svg>
              <p className="text-stone-600">{EMPTY_HINT}</p>
            </>
          )}
        </div>
      )}
    </div>
  );
}

function MessageItem({ message }: { message: Message }) {
  if (message.role === "system") {
    return (
      <li data-testid="message" data-role="system" className="self-center text-center text-xs text-stone-500 whitespace-pre-wrap">
        {message.text}
      </li>
    );
  }
  const user = message.role === "user";
  return (
    <li data-testid="message" data-role={message.role} className={`flex gap-2 ${user ? "justify-end" : "justify-start"}`}>
      {!user && (
        <span aria-hidden className="mt-1 flex h-7 w-7 shrink-0 items-center justify-center rounded-full bg-indigo-100 text-xs font-semibold text-indigo-700">
          P
        </span>
      )}
      <div
        className={[
          "max-w-[85%] whitespace-pre-wrap break-words rounded-2xl px-4 py-2 text-[15px] leading-relaxed",
          user ? "rounded-br-md bg-indigo-600 text-white" : "rounded-bl-md border border-stone-200 bg-white text-stone-800 shadow-sm",
        ].join(" ")}
      >
        {message.text}
      </div>
    </li>
  );
}

const TONE_STYLE: Record<QuestionAudit["tone"], string> = {
  allowed: "text-emerald-700",
  denied: "text-rose-700",
  timeout: "text-amber-700",
  neutral: "text-stone-500",
};

/** A closed question or approval: what was asked, how it ended, from where and when. */
function QuestionRecord({ question }: { question: Question }) {
  const audit = auditOf(question);
  const approval = audit.tool !== null;
  return (
    <li
      data-testid="question-record"
      data-status={question.status}
      data-kind={question.kind}
      data-closed-by={question.closedBy ?? undefined}
      data-question-id={question.id}
      className="ml-9 flex max-w-[85%] items-start gap-2 self-start rounded-lg bg-stone-100 px-3 py-1.5 text-sm text-stone-600"
    >
      {approval ? <ApprovalIcon tone={audit.tone} /> : <QuestionIcon />}
      <span className="min-w-0 [overflow-wrap:anywhere]">
        {approval ? (
          <span data-testid="question-record-asked" className="text-stone-700">
            <span className="text-stone-500">{audit.owner}:</span>{" "}
            <code className="rounded bg-white/80 px-1 font-mono text-[13px] font-medium text-stone-800">{audit.tool}</code>{" "}
            <code className="font-mono text-[13px] text-stone-700">{audit.subject}</code>
          </span>
        ) : (
          <span data-testid="question-record-asked" className="text-stone-700">
            {question.prompt}
          </span>
        )}{" "}
        <span aria-hidden className="text-stone-400">→</span>{" "}
        <span data-testid="question-record-outcome" className={`font-medium ${TONE_STYLE[audit.tone]}`}>
          {audit.outcome}
        </span>
        {audit.via && (
          <>
            <span aria-hidden className="text-stone-300"> · </span>
            <span data-testid="question-record-via" className="text-stone-500">
              {audit.via}
            </span>
          </>
        )}
        {audit.when && (
          <>
            <span aria-hidden className="text-stone-300"> · </span>
            <time data-testid="question-record-when" dateTime={question.closedAt ?? undefined} title={audit.whenFull ?? undefined} className="whitespace-nowrap text-xs text-stone-400">
              {audit.when}
            </time>
          </>
        )}
      </span>
    </li>
  );
}

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
