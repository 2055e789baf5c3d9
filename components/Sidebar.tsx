"use client";

import { FOCUSABLE, keepTabInside } from "./focus-trap";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type { Session } from "@/lib/protocol/entities";
import type { Ack } from "@/lib/protocol/socket";
import type { Me } from "@/lib/client/session-people";
import { NewChatButton } from "./NewChatButton";
import { SessionList } from "./SessionList";

interface SidebarProps {
  sessions: Session[] | null;
  activeId?: string;
  onNewChat: () => void;
  creating: boolean;
  error?: string | null;
  /** With these, each chat in the list can be renamed and deleted. */
  onRename?: (id: string, title: string) => Promise<Ack<unknown>>;
  onDelete?: (id: string) => Promise<Ack<unknown>>;
  /** Who I am: chats shared with me say whose they are. */
  me?: Me | null;
}

/** The chat list beside the chat on wide screens (on a phone it is the drawer's: see MobileSidebar). */
export function Sidebar(props: SidebarProps) {
  return (
    <aside className="hidden w-72 shrink-0 flex-col border-r border-stone-200 bg-stone-100/70 md:flex">
      <SidebarContent {...props} />
    </aside>
  );
}

function SidebarContent({ sessions, activeId, onNewChat, creating, error, onRename, onDelete, me, headerExtra }: SidebarProps & { headerExtra?: React.ReactNode }) {
  return (
    <>
      <div className="flex items-center gap-2 px-4 pb-3 pt-4">
        <Link href="/" className="flex items-center gap-2 rounded font-semibold pointer-coarse:min-h-11 tracking-tight text-stone-900 outline-none focus-visible:ring-2 focus-visible:ring-indigo-500">
          <Logo /> Parley
        </Link>
        <span className="flex-1" />
        {headerExtra}
      </div>
      <div className="px-3 pb-3">
        <NewChatButton onClick={onNewChat} busy={creating} />
      </div>
      <nav aria-label="Chats" className="min-h-0 flex-1 overflow-y-auto px-2 pb-4">
        <h2 className="px-3 pb-1 pt-2 text-xs font-medium uppercase tracking-wide text-stone-600">Chats</h2>
        {error && <p className="px-3 py-1 text-xs text-red-600">{error}</p>}
        <SessionList sessions={sessions} activeId={activeId} onRename={onRename} onDelete={onDelete} me={me} />
      </nav>
    </>
  );
}

/**
 * On a phone the chat list is a drawer: the header's menu button opens it over the chat, with a
 * backdrop. Esc, the backdrop, the close button or choosing a chat closes it; focus moves into it
 * when it opens, stays inside while it is open, and returns to the menu button when it closes.
 * Hidden on wide screens, where the sidebar shows.
 */
export function MobileSidebar(props: SidebarProps) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const pathname = usePathname();

  // Closing gives focus back to the menu button (not when a chat was chosen: that page's content takes over).
  const refocus = useRef(false);
  const close = (giveBack = true) => {
    refocus.current = giveBack;
    setOpen(false);
  };
  useEffect(() => {
    if (open || !refocus.current) return;
    refocus.current = false;
    button.current?.focus();
  }, [open]);

  // Another chat was chosen (or a new one made): the drawer has done its job.
  const shownPath = useRef(pathname);
  useEffect(() => {
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    setOpen(false);
  }, [pathname]);

  useEffect(() => {
    if (!open) return;
    const current = panel.current?.querySelector<HTMLElement>('[aria-current="page"]');
    (current ?? panel.current?.querySelector<HTMLElement>(FOCUSABLE))?.focus();
  }, [open]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      close();
      return;
    }
    keepTabInside(e, panel.current);
  };

  return (
    <>
      <button
        ref={button}
        type="button"
        data-testid="drawer-open"
        aria-label="Open chat list"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen(true)}
        className="-ml-1 flex h-9 w-9 shrink-0 items-center justify-center rounded-lg pointer-coarse:-ml-2 pointer-coarse:size-11 text-stone-600 outline-none hover:bg-stone-100 hover:text-stone-900 focus-visible:ring-2 focus-visible:ring-indigo-500 md:hidden"
      >
        <svg viewBox="0 0 20 20" aria-hidden className="h-5 w-5">
          <path d="M3 5.5h14M3 10h14M3 14.5h14" stroke="currentColor" strokeWidth="1.7" strokeLinecap="round" />
        </svg>
      </button>
      {open && (
        <div className="fixed inset-0 z-40 md:hidden" onKeyDown={onKeyDown}>
          <div aria-hidden data-testid="drawer-backdrop" className="absolute inset-0 bg-stone-900/40 motion-safe:animate-[fade-in_150ms_ease-out]" onClick={() => close()} />
          <div
            ref={panel}
            role="dialog"
            aria-modal="true"
            aria-label="Chats"
            data-testid="drawer"
            // Choosing a chat closes the drawer (the same chat too, which changes no path).
            onClick={(e) => {
              const link = (e.target as HTMLElement).closest("a[href]");
              if (link && !e.defaultPrevented) close(false);
            }}
            className="absolute inset-y-0 left-0 flex w-[85%] max-w-xs flex-col bg-stone-50 shadow-2xl motion-safe:animate-[drawer-in_180ms_ease-out]"
          >
            <SidebarContent
              {...props}
              headerExtra={
                <button
                  type="button"
                  data-testid="drawer-close"
                  aria-label="Close chat list"
                  onClick={() => close()}
                  className="flex h-8 w-8 items-center justify-center rounded-lg text-stone-500 pointer-coarse:-mr-2 pointer-coarse:size-11 outline-none hover:bg-stone-200 hover:text-stone-900 focus-visible:ring-2 focus-visible:ring-indigo-500"
                >
                  <svg viewBox="0 0 20 20" aria-hidden className="h-4 w-4">
                    <path d="M5 5l10 10M15 5L5 15" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" />
                  </svg>
                </button>
              }
            />
          </div>
        </div>
      )}
    </>
  );
}

export function Logo({ className = "h-6 w-6" }: { className?: string }) {
  return (
    <svg viewBox="0 0 24 24" aria-hidden className={className}>
      <rect width="24" height="24" rx="6" className="fill-indigo-600" />
      <path d="M7 8.5h10M7 12h6" stroke="white" strokeWidth="1.8" strokeLinecap="round" />
      <circle cx="17" cy="15.5" r="2" className="fill-amber-400" />
    </svg>
  );
}
