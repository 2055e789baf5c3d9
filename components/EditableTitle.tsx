"use client";

import { useEffect, useRef, useState } from "react";
import type { Ack } from "@/lib/protocol/socket";
import { TitleInput } from "./TitleInput";

interface EditableTitleProps {
  title: string | null;
  /** Without it (a chat shared with me: its owner names it) the title is only shown. */
  onRename?: (title: string) => Promise<Ack<unknown>>;
}

/** The chat's title in its header: the pencil (or a double-click) edits it in place; Enter saves, Esc cancels. */
export function EditableTitle({ title, onRename }: EditableTitleProps) {
  const [editing, setEditing] = useState(false);
  const pencil = useRef<HTMLButtonElement>(null);
  // Focus goes back to the pencil once the title is drawn again.
  const refocus = useRef(false);
  useEffect(() => {
    if (editing || !refocus.current) return;
    refocus.current = false;
    pencil.current?.focus();
  }, [editing]);

  const editable = title !== null && onRename !== undefined;
  if (editing && title !== null && onRename) {
    return (
      <div className="flex min-w-0 max-w-md flex-1">
        <TitleInput
          initial={title}
          testId="header-title-input"
          onSave={onRename}
          onDone={() => {
            refocus.current = true;
            setEditing(false);
          }}
        />
      </div>
    );
  }

  return (
    // On a phone the title keeps room for a word or two (it wraps to two lines) and the pencil covers it: a tap on the title renames.
    <div className={`group relative flex min-w-14 items-center gap-1 max-sm:min-h-11 sm:min-w-0 ${editable ? "max-sm:pr-5" : ""}`}>
      <h1
        data-testid="session-title"
        className="min-w-0 font-semibold break-words text-stone-900 max-sm:line-clamp-2 max-sm:text-sm max-sm:leading-tight sm:truncate"
        onDoubleClick={() => editable && setEditing(true)}
      >
        {title ?? "\u00a0"}
      </h1>
      {editable && (
        <button
          ref={pencil}
          type="button"
          data-testid="session-title-edit"
          aria-label="Rename chat"
          title="Rename chat"
          onClick={() => setEditing(true)}
          className="flex h-7 w-7 shrink-0 items-center justify-center rounded-md text-stone-500 outline-none hover:text-stone-800 focus-visible:ring-2 focus-visible:ring-indigo-500 max-sm:absolute max-sm:inset-0 max-sm:size-auto max-sm:justify-end sm:hover:bg-stone-100 sm:pointer-coarse:size-11"
        >
          <svg viewBox="0 0 20 20" aria-hidden className="h-3.5 w-3.5">
            <path d="M13.5 3.5l3 3L7 16H4v-3l9.5-9.5z" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
          </svg>
        </button>
      )}
    </div>
  );
}
