"use client";

import { useEffect, useRef, useState } from "react";
import type { Ack } from "@/lib/protocol/socket";

interface TitleInputProps {
  initial: string;
  /** Saves the new title; an error keeps the input open and is shown under it. */
  onSave: (title: string) => Promise<Ack<unknown>>;
  /** Editing ended: saved, cancelled (Esc) or unchanged. */
  onDone: () => void;
  className?: string;
  testId?: string;
}

export const MAX_TITLE_CHARS = 200;

/**
 * Renames a chat in place: the title selected in an input; Enter (or leaving the field) saves,
 * Esc cancels; an unchanged or empty title changes nothing; a refused one says why and stays.
 */
export function TitleInput({ initial, onSave, onDone, className = "", testId = "title-input" }: TitleInputProps) {
  const [value, setValue] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  /** Enter and the blur that follows it must save once. */
  const settled = useRef(false);

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  async function save() {
    if (settled.current || saving) return;
    const title = value.replace(/\s+/g, " ").trim();
    if (title === "") {
      setError("A title needs some text (Esc keeps the old one).");
      return;
    }
    if (title === initial) {
      settled.current = true;
      onDone();
      return;
    }
    setSaving(true);
    const res = await onSave(title);
    setSaving(false);
    if (res.ok) {
      settled.current = true;
      onDone();
    } else {
      setError(res.error.message);
      input.current?.focus();
    }
  }

  return (
    <span className={`flex min-w-0 flex-1 flex-col ${className}`}>
      <input
        ref={input}
        data-testid={testId}
        aria-label="Chat title"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${testId}-error` : undefined}
        value={value}
        maxLength={MAX_TITLE_CHARS}
        disabled={saving}
        onChange={(e) => {
          setValue(e.target.value);
          setError(null);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            void save();
          } else if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            settled.current = true;
            onDone();
          }
        }}
        onBlur={() => {
          // Leaving the field saves, as chat apps do; a refused title stays open with its reason.
          if (!error) void save();
        }}
        className="w-full min-w-0 rounded-md border border-indigo-400 bg-white px-2 py-1 text-sm font-normal text-stone-900 outline-none ring-2 ring-indigo-200 disabled:opacity-60"
      />
      {error && (
        <span id={`${testId}-error`} role="alert" data-testid={`${testId}-error`} className="mt-1 text-xs font-normal text-red-600">
          {error}
        </span>
      )}
    </span>
  );
}
