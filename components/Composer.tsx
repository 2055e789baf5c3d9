"use client";

import { useEffect, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import type { Ack } from "@/lib/protocol/socket";
import { pageIsLeaving, useDraft } from "@/lib/client/drafts";
import { noteComposerTyping } from "@/lib/client/composer-typing";
import { StopButton } from "./StopButton";

interface ComposerProps {
  /** Whose draft this input keeps (per tab, surviving reloads and cards). */
  sessionId: string;
  onSend: (text: string) => Promise<Ack<unknown>>;
  disabled?: boolean;
  /** The session's turn is still running: the button stops it instead of sending (the draft stays). */
  busy?: boolean;
  onStop?: () => void;
  stopping?: boolean;
}

export function Composer({ sessionId, onSend, disabled = false, busy = false, onStop, stopping = false }: ComposerProps) {
  const [text, setText] = useDraft(sessionId);
  const latest = useRef(text);
  latest.current = text;
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => input.current?.focus(), []);
  // A question card takes this input's place: focused with text in it, the person may be typing still.
  useLayoutEffect(() => {
    const el = input.current;
    return () => {
      if (el && document.activeElement === el && el.value.trim() !== "") noteComposerTyping();
    };
  }, []);

  // Grow with the text up to a few lines, then scroll.
  useEffect(() => {
    const el = input.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 200)}px`;
  }, [text]);

  const canSend = text.trim() !== "" && !sending && !disabled && !busy;

  async function send(e?: FormEvent) {
    e?.preventDefault();
    if (!canSend) return;
    setSending(true);
    setError(null);
    // The draft goes with the message at once: it shows in the transcript before the send's answer
    // returns, and a reload meanwhile must not offer it again. A refused message comes back, unless
    // something new was typed meanwhile or the page is being left (which aborts the send's request).
    const sent = text;
    setText("");
    const res = await onSend(sent.trim());
    setSending(false);
    if (!res.ok) {
      if (latest.current === "" && !pageIsLeaving()) setText(sent);
      setError(res.error.message);
    }
    input.current?.focus();
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
      // The Enter that sends ends the typing: a card the message brings on is not typed into.
      return;
    }
    noteComposerTyping();
  }

  return (
    <form data-testid="composer" onSubmit={(e) => void send(e)} className="mx-auto w-full max-w-3xl">
      <div className="flex items-end gap-2 rounded-2xl border border-stone-300 bg-white p-2 shadow-sm focus-within:border-indigo-400 focus-within:ring-2 focus-within:ring-indigo-100">
        <label htmlFor="composer-input" className="sr-only">
          Message
        </label>
        <textarea
          id="composer-input"
          ref={input}
          data-testid="composer-input"
          rows={1}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          placeholder="Message Parley…"
          className="max-h-[200px] min-h-[40px] flex-1 resize-none bg-transparent px-2 py-2 text-[15px] leading-6 text-stone-900 outline-none placeholder:text-stone-400"
        />
        {busy && onStop ? (
          <StopButton testId="composer-stop" size="large" onStop={onStop} stopping={stopping} />
        ) : (
          <button
            type="submit"
            data-testid="composer-send"
            disabled={!canSend}
            className="h-10 shrink-0 rounded-xl bg-indigo-600 px-4 pointer-coarse:h-11 text-sm font-medium text-white hover:bg-indigo-500 disabled:bg-stone-200 disabled:text-stone-400 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            {sending ? "Sending…" : "Send"}
          </button>
        )}
      </div>
      <p className="mt-1.5 px-2 text-xs text-stone-500">
        {error ? (
          <span data-testid="composer-error" role="alert" className="text-red-600">
            {error}
          </span>
        ) : busy ? (
          "Parley is still working on your last message · Stop it to send a new one"
        ) : (
          // A touch keyboard's Enter makes a new line: the hint is for keyboards.
          <span className="pointer-coarse:hidden">Enter to send · Shift+Enter for a new line</span>
        )}
      </p>
    </form>
  );
}
