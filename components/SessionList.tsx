"use client";

import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import type { Session } from "@/lib/protocol/entities";
import type { Ack } from "@/lib/protocol/socket";
import { relativeTime, useNow } from "@/lib/client/relative-time";
import { fullTime } from "@/lib/client/timestamps";
import { mayManage, sharedWords, whoseChat, type Me } from "@/lib/client/session-people";
import { useNameOf } from "@/lib/client/use-names";
import { ConfirmDialog } from "./ConfirmDialog";
import { PeopleIcon } from "./PeoplePanel";
import { TitleInput } from "./TitleInput";

interface SessionListProps {
  sessions: Session[] | null;
  activeId?: string;
  /** With these, each chat I may manage (mine, or any as an administrator) has a menu to rename and delete it. */
  onRename?: (id: string, title: string) => Promise<Ack<unknown>>;
  onDelete?: (id: string) => Promise<Ack<unknown>>;
  /** Who I am: a chat shared with me says whose it is. */
  me?: Me | null;
}

export function SessionList({ sessions, activeId, onRename, onDelete, me = null }: SessionListProps) {
  // Relative times stay true while the page stays open.
  const now = useNow(60_000);
  const [deleting, setDeleting] = useState<Session | null>(null);
  const [busy, setBusy] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  if (sessions === null) return <p className="px-3 py-2 text-sm text-stone-400">Loading chats…</p>;
  if (sessions.length === 0) return <p className="px-3 py-2 text-sm text-stone-500">No chats yet.</p>;

  const confirmDelete = async () => {
    if (!deleting || !onDelete) return;
    setBusy(true);
    const res = await onDelete(deleting.id);
    setBusy(false);
    if (res.ok) setDeleting(null);
    else setDeleteError(res.error.message);
  };

  return (
    <>
      <ul className="space-y-0.5">
        {sessions.map((s) => (
          <SessionRow
            key={s.id}
            session={s}
            active={s.id === activeId}
            now={now}
            me={me}
            onRename={mayManage(s, me) ? onRename : undefined}
            onAskDelete={
              onDelete && mayManage(s, me)
                ? () => {
                    setDeleteError(null);
                    setDeleting(s);
                  }
                : undefined
            }
          />
        ))}
      </ul>
      {deleting && (
        <ConfirmDialog
          testId="delete-chat-dialog"
          title={`Delete “${deleting.title}”?`}
          confirmLabel="Delete chat"
          busyLabel="Deleting…"
          busy={busy}
          error={deleteError}
          onConfirm={() => void confirmDelete()}
          onCancel={() => setDeleting(null)}
        >
          <p>The chat and its messages are deleted for good{deleting.shared ? ", for everyone it is shared with" : ""}.</p>
          {deleting.pendingCount > 0 ? (
            <p className="mt-2 font-medium text-amber-800">
              {deleting.pendingCount === 1 ? "A question is" : `${deleting.pendingCount} questions are`} still waiting for an answer: its work is stopped and the question withdrawn in every tab.
            </p>
          ) : (
            <p className="mt-2">Anything it is still working on is stopped.</p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}

interface SessionRowProps {
  session: Session;
  active: boolean;
  now: number;
  me: Me | null;
  onRename?: (id: string, title: string) => Promise<Ack<unknown>>;
  onAskDelete?: () => void;
}

function SessionRow({ session: s, active, now, me, onRename, onAskDelete }: SessionRowProps) {
  const nameOf = useNameOf();
  const [renaming, setRenaming] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const link = useRef<HTMLAnchorElement>(null);
  const hasMenu = Boolean(onRename || onAskDelete);
  // After a rename the chat's link takes focus back, once it is drawn again (not on a frame: a background tab draws none).
  const refocus = useRef(false);
  useEffect(() => {
    if (renaming || !refocus.current) return;
    refocus.current = false;
    link.current?.focus();
  }, [renaming]);

  const rowClass = ["group relative flex items-center gap-1", "rounded-lg hover:bg-stone-200/60", active ? "bg-white shadow-sm ring-1 ring-stone-200" : ""].join(" ");

  if (renaming && onRename) {
    return (
      <li className={rowClass} data-testid="session-row" data-session-id={s.id}>
        <div className="flex w-full px-1.5 py-1">
          <TitleInput
            initial={s.title}
            testId="session-rename-input"
            onSave={(title) => onRename(s.id, title)}
            onDone={() => {
              refocus.current = true;
              setRenaming(false);
            }}
          />
        </div>
      </li>
    );
  }

  const time = relativeTime(s.updatedAt, now);
  const whose = whoseChat(s, me, nameOf);
  const shared = sharedWords(s, me, nameOf);
  /** A shared chat's mark: the people icon, and whose it is when it is someone else's. */
  const sharing = shared && (
    <span data-testid="session-shared" data-whose={whose ?? undefined} title={shared} className="flex shrink-0 items-center gap-1 text-xs font-normal text-stone-600">
      <PeopleIcon className="h-3.5 w-3.5" />
      {whose ? <span data-testid="session-whose">{whose}</span> : <span className="sr-only">{shared}</span>}
      {whose && <span className="sr-only"> (shared with you)</span>}
    </span>
  );
  return (
    <li className={rowClass} data-testid="session-row" data-session-id={s.id}>
      <Link
        ref={link}
        href={`/s/${s.id}`}
        data-testid="session-link"
        data-session-id={s.id}
        aria-current={active ? "page" : undefined}
        onDoubleClick={
          onRename
            ? (e) => {
                e.preventDefault();
                setRenaming(true);
              }
            : undefined
        }
        className={[
          "flex min-w-0 flex-1 items-center gap-2 rounded-lg outline-none focus-visible:ring-2 focus-visible:ring-indigo-500",
          "py-2 pl-3 pr-1 text-sm",
          active ? "font-medium text-stone-900" : "text-stone-700",
        ].join(" ")}
      >
        <span className="flex min-w-0 flex-1 flex-col">
          <span data-testid="session-link-title" className="truncate">
            {s.title}
          </span>
          <span className="flex min-w-0 items-center gap-2">
            <time dateTime={s.updatedAt} title={fullTime(s.updatedAt)} data-testid="session-time" className="text-xs font-normal text-stone-600">
              {time}
            </time>
            {sharing}
          </span>
        </span>
        {s.pendingCount > 0 && (
          <span
            data-testid="session-pending-count"
            title={`${s.pendingCount} question${s.pendingCount === 1 ? "" : "s"} waiting`}
            className="shrink-0 rounded-full bg-amber-400 px-1.5 text-xs font-semibold leading-5 text-amber-950"
          >
            {s.pendingCount}
            <span className="sr-only"> waiting</span>
          </span>
        )}
      </Link>
      {hasMenu && (
        <button
          ref={menuButton}
          type="button"
          data-testid="session-menu-button"
          aria-label={`Options for “${s.title}”`}
          aria-haspopup="menu"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen((open) => !open)}
          className={[
            "mr-1 flex h-7 w-7 shrink-0 items-center justify-center rounded-md pointer-coarse:mr-0 pointer-coarse:size-11 text-stone-500 outline-none hover:bg-stone-300/60 hover:text-stone-900 focus-visible:opacity-100 focus-visible:ring-2 focus-visible:ring-indigo-500",
            menuOpen || active ? "opacity-100" : "opacity-0 group-hover:opacity-100 [@media(hover:none)]:opacity-100",
          ].join(" ")}
        >
          <svg viewBox="0 0 20 20" aria-hidden className="h-4 w-4 fill-current">
            <circle cx="4" cy="10" r="1.6" />
            <circle cx="10" cy="10" r="1.6" />
            <circle cx="16" cy="10" r="1.6" />
          </svg>
        </button>
      )}
      {menuOpen && (
        <RowMenu
          title={s.title}
          onClose={(refocus) => {
            setMenuOpen(false);
            if (refocus) menuButton.current?.focus();
          }}
          onRename={onRename ? () => setRenaming(true) : undefined}
          onDelete={onAskDelete}
          anchor={menuButton}
        />
      )}
    </li>
  );
}

/** A small menu under a chat's options button: arrows move, Esc closes, a click outside closes. */
function RowMenu({
  title,
  onClose,
  onRename,
  onDelete,
  anchor,
}: {
  title: string;
  onClose: (refocus: boolean) => void;
  onRename?: () => void;
  onDelete?: () => void;
  anchor: React.RefObject<HTMLButtonElement | null>;
}) {
  const menu = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const onPointer = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!menu.current?.contains(target) && !anchor.current?.contains(target)) close.current(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [anchor]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      onClose(true);
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const next = (at + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
      items[next]?.focus();
    } else if (e.key === "Tab") {
      onClose(false);
    }
  };

  const item = "block w-full px-3 py-2 text-left text-sm pointer-coarse:min-h-11 outline-none hover:bg-stone-100 focus-visible:bg-stone-100";
  return (
    <div
      ref={menu}
      role="menu"
      aria-label={`Options for “${title}”`}
      data-testid="session-menu"
      onKeyDown={onKeyDown}
      className="absolute right-1 top-full z-30 mt-1 w-36 overflow-hidden rounded-lg bg-white py-1 shadow-lg ring-1 ring-stone-200"
    >
      {onRename && (
        <button
          type="button"
          role="menuitem"
          data-testid="session-rename"
          className={`${item} text-stone-800`}
          onClick={() => {
            onClose(false);
            onRename();
          }}
        >
          Rename
        </button>
      )}
      {onDelete && (
        <button
          type="button"
          role="menuitem"
          data-testid="session-delete"
          className={`${item} text-red-700`}
          onClick={() => {
            // Focus goes back to the options button first: the dialog returns it there when it closes.
            onClose(true);
            onDelete();
          }}
        >
          Delete…
        </button>
      )}
    </div>
  );
}
