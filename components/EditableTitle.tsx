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
    <div className="group flex min-w-0 items-center gap-1">
      <h1 data-testid="session-title" className="min-w-0 truncate font-semibold text-stone-900" onDoubleClick={() => editable && setEditing(true)}>
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
          className="flex h-7 w-7 shrink-0 items-center justify-center rounded-md text-stone-500 pointer-coarse:size-11 outline-none hover:bg-stone-100 hover:text-stone-800 focus-visible:ring-2 focus-visible:ring-indigo-500"
        >
          <svg viewBox="0 0 20 20" aria-hidden className="h-3.5 w-3.5">
            <path d="M13.5 3.5l3 3L7 16H4v-3l9.5-9.5z" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
          </svg>
        </button>
      )}
    </div>
  );
}
