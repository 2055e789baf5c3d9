import Link from "next/link";
import type { Session } from "@/lib/protocol/entities";
import { NewChatButton } from "./NewChatButton";
import { SessionList } from "./SessionList";

interface SidebarProps {
  sessions: Session[] | null;
  activeId?: string;
  onNewChat: () => void;
  creating: boolean;
  error?: string | null;
}

export function Sidebar({ sessions, activeId, onNewChat, creating, error }: SidebarProps) {
  return (
    <aside className="hidden w-72 shrink-0 flex-col border-r border-stone-200 bg-stone-100/70 md:flex">
      <div className="flex items-center gap-2 px-4 pb-3 pt-4">
        <Link href="/" className="flex items-center gap-2 rounded font-semibold tracking-tight text-stone-900 outline-none focus-visible:ring-2 focus-visible:ring-indigo-500">
          <Logo /> Parley
        </Link>
      </div>
      <div className="px-3 pb-3">
        <NewChatButton onClick={onNewChat} busy={creating} />
      </div>
      <nav aria-label="Chats" className="min-h-0 flex-1 overflow-y-auto px-2 pb-4">
        <h2 className="px-3 pb-1 pt-2 text-xs font-medium uppercase tracking-wide text-stone-400">Chats</h2>
        {error && <p className="px-3 py-1 text-xs text-red-600">{error}</p>}
        <SessionList sessions={sessions} activeId={activeId} />
      </nav>
    </aside>
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
