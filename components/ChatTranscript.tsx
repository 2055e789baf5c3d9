"use client";

import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { Message, StreamingReply } from "@/lib/protocol/entities";
import { AgentMarkdown } from "./AgentMarkdown";
import { ToolCallDetails } from "./ToolCallDetails";
import type { Question } from "@/lib/protocol/question";
import { auditOf, type QuestionAudit } from "@/lib/client/question-audit";
import type { TranscriptItem } from "@/lib/client/session-store";

interface ChatTranscriptProps {
  items: TranscriptItem[];
  loading: boolean;
  /** Sends a message again: offered under a failed chat turn (a provider error) while no turn runs. */
  onRetry?: (text: string) => unknown;
}

/** The text to send again when the transcript ends with a failed chat turn: its user message. */
function retryTextOf(items: TranscriptItem[]): string | null {
  const last = items.at(-1);
  if (last?.type !== "message" || last.message.role !== "system" || !last.message.text.startsWith("Run chat failed:")) return null;
  for (let i = items.length - 2; i >= 0; i--) {
    const item = items[i]!;
    if (item.type === "message" && item.message.role === "user") return item.message.text;
  }
  return null;
}

const EMPTY_HINT = "Say hello, ask what I can do, or type /help for the demo commands (/deploy, /coffee, /pizza …)";

export function ChatTranscript({ items, loading, onRetry }: ChatTranscriptProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const retryText = onRetry ? retryTextOf(items) : null;
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
          ) : item.type === "stream" ? (
            <StreamingItem key={`stream:${item.stream.runId}:${item.stream.seq}`} stream={item.stream} />
          ) : (
            <QuestionRecord key={item.question.id} question={item.question} />
          ),
        )}
        {retryText !== null && (
          <li className="self-center">
            <button
              type="button"
              data-testid="retry-turn"
              onClick={() => onRetry?.(retryText)}
              className="rounded-full border border-stone-300 bg-white px-3 py-1 text-xs font-medium text-stone-700 shadow-sm hover:bg-stone-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
            >
              Retry
            </button>
          </li>
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
  if (!user) return <AgentBubble text={message.text} stopped={message.stopped ?? false} />;
  return (
    <li data-testid="message" data-role={message.role} className="flex justify-end gap-2">
      <div className="max-w-[85%] whitespace-pre-wrap break-words rounded-2xl rounded-br-md bg-indigo-600 px-4 py-2 text-[15px] leading-relaxed text-white">{message.text}</div>
    </li>
  );
}

/** An agent reply still arriving: the text so far, with a blinking cursor after it. */
function StreamingItem({ stream }: { stream: StreamingReply }) {
  return <AgentBubble text={stream.text} streaming />;
}

/**
 * An agent message (Markdown, rendered safely): stored, stopped (cut off by Stop: what had arrived,
 * marked), or still streaming (its own test id, so counts of stored messages stay what they were).
 */
function AgentBubble({ text, stopped = false, streaming = false }: { text: string; stopped?: boolean; streaming?: boolean }) {
  return (
    <li
      data-testid={streaming ? "streaming-message" : "message"}
      data-role="agent"
      data-stopped={stopped ? "true" : undefined}
      aria-busy={streaming || undefined}
      className="flex justify-start gap-2"
    >
      <span aria-hidden className="mt-1 flex h-7 w-7 shrink-0 items-center justify-center rounded-full bg-indigo-100 text-xs font-semibold text-indigo-700">
        P
      </span>
      <div className="flex min-w-0 max-w-[85%] flex-col items-start gap-1">
        <div
          data-testid="message-text"
          className={[
            "min-w-0 max-w-full break-words rounded-2xl rounded-bl-md border bg-white px-4 py-2 text-[15px] leading-relaxed text-stone-800 shadow-sm [overflow-wrap:anywhere]",
            stopped ? "border-dashed border-stone-300" : "border-stone-200",
            // The cursor sits at the end of the last block, where the next words will appear.
            streaming
              ? "[&>*:last-child]:after:ml-0.5 [&>*:last-child]:after:inline-block [&>*:last-child]:after:h-[1.05em] [&>*:last-child]:after:w-[2px] [&>*:last-child]:after:translate-y-[3px] [&>*:last-child]:after:animate-pulse [&>*:last-child]:after:bg-indigo-500 [&>*:last-child]:after:content-['']"
              : "",
          ].join(" ")}
        >
          <AgentMarkdown text={text} />
        </div>
        {stopped && (
          <span data-testid="message-stopped" className="ml-2 inline-flex items-center gap-1 text-xs text-stone-500">
            <svg aria-hidden viewBox="0 0 12 12" className="h-3 w-3">
              <rect x="2" y="2" width="8" height="8" rx="1.5" className="fill-stone-400" />
            </svg>
            stopped
          </span>
        )}
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

/**
 * A closed question or approval: what was asked, how it ended, from where and when. An approval is
 * a tool call: its row expands (the chevron) to the tool's input and result.
 */
function QuestionRecord({ question }: { question: Question }) {
  const audit = auditOf(question);
  const approval = audit.tool !== null;
  const [open, setOpen] = useState(false);
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
      <span className="min-w-0 flex-1 [overflow-wrap:anywhere]">
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
        {approval && open && <ToolCallDetails question={question} />}
      </span>
      {approval && (
        <button
          type="button"
          data-testid="tool-call-toggle"
          aria-expanded={open}
          aria-label={`${open ? "Hide" : "Show"} the input and result of ${audit.tool}`}
          onClick={() => setOpen((o) => !o)}
          className="-mr-1 flex h-6 w-6 shrink-0 items-center justify-center rounded text-stone-500 hover:bg-stone-200 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
        >
          <svg aria-hidden viewBox="0 0 12 12" className={`h-3 w-3 transition-transform ${open ? "rotate-180" : ""}`}>
            <path d="m2.5 4.5 3.5 3.5 3.5-3.5" className="fill-none stroke-current" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
        </button>
      )}
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
