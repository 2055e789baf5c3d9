"use client";

import { useRef, useState, type ReactNode } from "react";
import { HeaderSheet } from "./HeaderSheet";
import { MyEmail } from "./MyEmail";
import { mayRename, peopleView, type Me, type PersonRow } from "@/lib/client/session-people";
import { useNameField } from "./use-name-field";
import { useMembers } from "@/lib/client/use-members";
import { renamePerson, useNameOf } from "@/lib/client/use-names";
import type { NameOf } from "@/lib/protocol/display-names";

/**
 * "People": the chat header's people button opens who the chat is shared with, a popover on a
 * wide screen and a sheet from the bottom on a phone. Its owner (or an administrator) adds a
 * person by name and removes members; a member may leave. Each person shows by their display
 * name; an administrator may rename anyone there, anyone else themselves.
 */
export function PeopleButton({ sessionId, shared, me }: { sessionId: string; shared: boolean; me: Me | null }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const label = shared ? "People (shared)" : "People";

  return (
    <div className="relative shrink-0">
      <button
        ref={button}
        type="button"
        data-testid="people-button"
        data-shared={shared}
        aria-label={label}
        title={label}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        className={`flex h-8 w-8 items-center justify-center rounded-md text-stone-500 pointer-coarse:size-11 hover:bg-stone-100 hover:text-stone-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${open ? "bg-stone-100 text-stone-900" : ""}`}
      >
        <PeopleIcon className={`h-5 w-5 ${shared ? "text-indigo-600" : ""}`} />
      </button>
      {open && <PeoplePanel sessionId={sessionId} me={me} onClose={close} />}
    </div>
  );
}

function PeoplePanel({ sessionId, me, onClose }: { sessionId: string; me: Me | null; onClose: () => void }) {
  const { members, error, removing, add, remove, reload } = useMembers(sessionId, true);
  const nameOf = useNameOf();
  const view = members === null ? null : peopleView(members, me);
  return (
    <HeaderSheet testId="people" title="People" note="Everyone here sees this chat, gets its questions and may answer them." width="md:w-[22rem]" onClose={onClose}>
      {error && (
        <div role="alert" data-testid="people-error" className="mx-4 mt-3 flex items-center gap-2 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800 ring-1 ring-red-200">
          <span className="min-w-0 flex-1">{error.message}</span>
          <button type="button" onClick={() => void reload()} className="shrink-0 rounded px-1.5 text-sm font-medium text-red-900 pointer-coarse:min-h-11 underline-offset-2 hover:underline">
            Retry
          </button>
        </div>
      )}
      {view === null ? (
        !error && (
          <p className="px-4 py-6 text-center text-sm text-stone-500" aria-busy>
            Loading people…
          </p>
        )
      ) : (
        <>
          <ul data-testid="people-list" aria-label="People in this chat" className="divide-y divide-stone-100 pt-1">
            {view.rows.map((row) => (
              <PersonItem key={row.user} row={row} nameOf={nameOf} canRename={mayRename(row.user, me)} removing={removing.has(row.user)} onAct={() => void remove(row.user)} />
            ))}
          </ul>
          {view.canAdd ? <AddPerson onAdd={add} /> : <Note testId="people-owner-note">{view.owner ? `Only ${nameOf(view.owner)} can add or remove people.` : null}</Note>}
          <MyEmail me={me?.name ?? null} />
        </>
      )}
    </HeaderSheet>
  );
}

function PersonItem({ row, nameOf, canRename, removing, onAct }: { row: PersonRow; nameOf: NameOf; canRename: boolean; removing: boolean; onAct: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const busyLabel = row.action === "leave" ? "Leaving…" : "Removing…";
  const label = row.action === "leave" ? "Leave" : "Remove";
  const name = nameOf(row.user);
  if (renaming) return <RenamePerson user={row.user} current={name} onDone={() => setRenaming(false)} />;
  return (
    <li data-testid="person" data-user={row.user} data-role={row.role} className={`flex min-h-12 items-center gap-3 px-4 py-1.5 ${removing ? "opacity-60" : ""}`}>
      <span aria-hidden className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-stone-200 text-sm font-semibold uppercase text-stone-700">
        {name.slice(0, 1)}
      </span>
      <p className="min-w-0 flex-1 truncate text-sm text-stone-900">
        <span data-testid="person-name">{name}</span>
        {row.you && <span className="ml-1.5 text-stone-600">(you)</span>}
        {row.role === "owner" && <span className="ml-2 rounded bg-indigo-50 px-1.5 py-0.5 text-xs font-medium text-indigo-700">owner</span>}
      </p>
      {canRename && (
        <button
          type="button"
          data-testid="person-rename"
          aria-label={row.you ? "Rename yourself" : `Rename ${name}`}
          onClick={() => setRenaming(true)}
          className="h-8 shrink-0 rounded-md px-3 text-sm font-medium text-stone-700 ring-1 ring-stone-300 hover:bg-stone-50 pointer-coarse:h-11 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          Rename
        </button>
      )}
      {row.action && (
        <button
          type="button"
          data-testid={row.action === "leave" ? "person-leave" : "person-remove"}
          aria-label={row.action === "leave" ? "Leave this chat" : `Remove ${name}`}
          disabled={removing}
          onClick={onAct}
          className={`h-8 shrink-0 rounded-md px-3 text-sm font-medium ring-1 hover:bg-stone-50 disabled:opacity-50 pointer-coarse:h-11 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${row.action === "leave" ? "text-red-700 ring-red-200" : "text-stone-700 ring-stone-300"}`}
        >
          {removing ? busyLabel : label}
        </button>
      )}
    </li>
  );
}

/** A person's row while renaming them: their display name in a field; Save (Enter) renames them everywhere, Cancel (Esc) keeps it. */
function RenamePerson({ user, current, onDone }: { user: string; current: string; onDone: () => void }) {
  const field = useNameField(current, (name) => (name === current ? null : renamePerson(user, name)), onDone);
  const { inputId, errorId, problem, busy, submit } = field;

  return (
    <li data-testid="person-renaming" data-user={user} className="px-4 py-2">
      <form
        className="flex flex-col gap-1.5"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label htmlFor={inputId} className="sr-only">
          New name for {current}
        </label>
        <div className="flex gap-2">
          <input
            {...field.inputProps}
            data-testid="person-rename-name"
            autoFocus
            onKeyDown={(e) => {
              if (e.key !== "Escape") return;
              // The row, not the whole sheet, closes.
              e.stopPropagation();
              onDone();
            }}
          />
          <button
            type="submit"
            data-testid="person-rename-save"
            disabled={busy}
            className="h-9 shrink-0 rounded-lg bg-indigo-600 px-3 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60 pointer-coarse:h-11 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            {busy ? "Saving…" : "Save"}
          </button>
          <button
            type="button"
            onClick={onDone}
            className="h-9 shrink-0 rounded-lg px-3 text-sm font-medium text-stone-700 ring-1 ring-stone-300 hover:bg-stone-50 pointer-coarse:h-11 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            Cancel
          </button>
        </div>
        {problem && (
          <p id={errorId} role="alert" data-testid="person-rename-error" className="text-sm text-red-700">
            {problem}
          </p>
        )}
      </form>
    </li>
  );
}

/** "Add a person" by name: a name the server does not know is said under the field. */
function AddPerson({ onAdd }: { onAdd: (user: string) => Promise<{ ok: true } | { ok: false; error: { message: string } }> }) {
  const field = useNameField("", onAdd, () => {});
  const { inputId, errorId, problem, busy, submit } = field;

  return (
    <form
      data-testid="people-add"
      className="flex flex-col gap-1.5 border-t border-stone-100 px-4 pb-4 pt-3"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label htmlFor={inputId} className="text-sm font-medium text-stone-800">
        Add a person
      </label>
      <div className="flex gap-2">
        <input {...field.inputProps} data-testid="people-add-name" placeholder="Their name" />
        <button
          type="submit"
          data-testid="people-add-submit"
          disabled={busy}
          className="h-9 shrink-0 rounded-lg bg-indigo-600 px-4 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60 pointer-coarse:h-11 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          {busy ? "Adding…" : "Add"}
        </button>
      </div>
      {problem && (
        <p id={errorId} role="alert" data-testid="people-add-error" className="text-sm text-red-700">
          {problem}
        </p>
      )}
    </form>
  );
}

function Note({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <p data-testid={testId} className="border-t border-stone-100 px-4 py-3 text-sm text-stone-600">
      {children}
    </p>
  );
}

export function PeopleIcon({ className = "h-5 w-5" }: { className?: string }) {
  return (
    <svg aria-hidden viewBox="0 0 20 20" className={className}>
      <g className="fill-none stroke-current" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round">
        <circle cx="7.5" cy="6.5" r="2.75" />
        <path d="M2.5 16.5c.4-2.9 2.4-4.75 5-4.75s4.6 1.85 5 4.75" />
        <path d="M13 4.1a2.6 2.6 0 0 1 0 5" />
        <path d="M14.6 11.9c1.6.6 2.6 2.2 2.9 4.6" />
      </g>
    </svg>
  );
}
