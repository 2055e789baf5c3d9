"use client";

import { memo, useEffect, useState } from "react";
import type { Message, StreamingReply } from "@/lib/protocol/entities";
import { copyText } from "@/lib/client/copy-text";
import { clockTime, fullTime } from "@/lib/client/timestamps";
import { AgentMarkdown } from "./AgentMarkdown";

/** A message's time: shown on hover or focus (always on touch screens, which have no hover). */
function MessageTime({ at }: { at: string }) {
  return (
    <time
      data-testid="message-time"
      dateTime={at}
      title={fullTime(at)}
      className="invisible shrink-0 whitespace-nowrap text-[11px] text-stone-500 group-focus-within:visible group-hover:visible pointer-coarse:visible"
    >
      {clockTime(at)}
    </time>
  );
}

/** Copies an agent message's text (its Markdown source). */
function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 1_500);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      data-testid="copy-message"
      aria-label={state === "copied" ? "Copied" : "Copy message"}
      title="Copy message"
      onClick={() => void copyText(text).then((ok) => setState(ok ? "copied" : "failed"))}
      className="inline-flex h-5 items-center gap-1 rounded px-1 text-xs pointer-coarse:h-11 pointer-coarse:min-w-11 pointer-coarse:justify-center text-stone-500 opacity-0 transition-opacity hover:bg-stone-200 hover:text-stone-700 focus-visible:opacity-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500 group-hover:opacity-100 pointer-coarse:opacity-100"
    >
      <svg aria-hidden viewBox="0 0 16 16" className="h-3.5 w-3.5">
        {state === "copied" ? (
          <path d="m3.5 8.5 3 3 6-7" className="fill-none stroke-emerald-600" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
        ) : (
          <>
            <rect x="5" y="5" width="8" height="9" rx="1.5" className="fill-none stroke-current" strokeWidth="1.3" />
            <path d="M3 10.5V3.5A1.5 1.5 0 0 1 4.5 2H10" className="fill-none stroke-current" strokeWidth="1.3" strokeLinecap="round" />
          </>
        )}
      </svg>
      <span aria-live="polite">{state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : ""}</span>
    </button>
  );
}

/** A stored message; memoised, so a reply streaming below does not draw the history again. */
export const MessageItem = memo(function MessageItem({ message }: { message: Message }) {
  if (message.role === "system") {
    return (
      <li data-testid="message" data-role="system" className="group flex items-center justify-center gap-2 self-center text-center text-xs text-stone-500 whitespace-pre-wrap">
        {message.text}
        <MessageTime at={message.createdAt} />
      </li>
    );
  }
  const user = message.role === "user";
  if (!user) return <AgentBubble text={message.text} stopped={message.stopped ?? false} at={message.createdAt} />;
  if (message.sender) {
    // Someone writing from elsewhere (a text channel): not the person at this screen, so their name and a lighter bubble.
    return (
      <li data-testid="message" data-role={message.role} data-sender={message.sender} className="group flex items-end justify-end gap-2">
        <MessageTime at={message.createdAt} />
        <div className="flex max-w-[85%] flex-col items-end gap-1">
          <span data-testid="message-sender" className="px-1 text-xs font-medium text-stone-600">
            {message.sender}
          </span>
          <div className="whitespace-pre-wrap break-words rounded-2xl rounded-br-md border border-indigo-200 bg-indigo-50 px-4 py-2 text-[15px] leading-relaxed text-indigo-950">{message.text}</div>
        </div>
      </li>
    );
  }
  return (
    <li data-testid="message" data-role={message.role} className="group flex items-end justify-end gap-2">
      <MessageTime at={message.createdAt} />
      <div className="max-w-[85%] whitespace-pre-wrap break-words rounded-2xl rounded-br-md bg-indigo-600 px-4 py-2 text-[15px] leading-relaxed text-white">{message.text}</div>
    </li>
  );
});

/** An agent reply still arriving: the text so far, with a blinking cursor after it. */
export function StreamingItem({ stream }: { stream: StreamingReply }) {
  return <AgentBubble text={stream.text} streaming />;
}

/**
 * An agent message (Markdown, rendered safely): stored, stopped (cut off by Stop: what had arrived,
 * marked), or still streaming (its own test id, so counts of stored messages stay what they were).
 */
function AgentBubble({ text, stopped = false, streaming = false, at }: { text: string; stopped?: boolean; streaming?: boolean; at?: string }) {
  return (
    <li
      data-testid={streaming ? "streaming-message" : "message"}
      data-role="agent"
      data-stopped={stopped ? "true" : undefined}
      aria-busy={streaming || undefined}
      className="group flex justify-start gap-2"
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
              ? "[&>*:last-child]:after:ml-0.5 [&>*:last-child]:after:inline-block [&>*:last-child]:after:h-[1.05em] [&>*:last-child]:after:w-[2px] [&>*:last-child]:after:translate-y-[3px] [&>*:last-child]:after:motion-safe:animate-pulse [&>*:last-child]:after:bg-indigo-500 [&>*:last-child]:after:content-['']"
              : "",
          ].join(" ")}
        >
          <AgentMarkdown text={text} />
        </div>
        {(stopped || at) && (
          <div className="-mt-0.5 ml-2 flex h-5 items-center gap-2 pointer-coarse:h-8">
            {stopped && (
              <span data-testid="message-stopped" className="inline-flex items-center gap-1 text-xs text-stone-500">
                <svg aria-hidden viewBox="0 0 12 12" className="h-3 w-3">
                  <rect x="2" y="2" width="8" height="8" rx="1.5" className="fill-stone-400" />
                </svg>
                stopped
              </span>
            )}
            {at && <CopyButton text={text} />}
            {at && <MessageTime at={at} />}
          </div>
        )}
      </div>
    </li>
  );
}
