import Link from "next/link";
import type { Session } from "@/lib/protocol/entities";

interface SessionListProps {
  sessions: Session[] | null;
  activeId?: string;
  /** "compact" for the sidebar, "roomy" for the home page. */
  variant?: "compact" | "roomy";
}

export function SessionList({ sessions, activeId, variant = "compact" }: SessionListProps) {
  if (sessions === null) return <p className="px-3 py-2 text-sm text-stone-400">Loading chats…</p>;
  if (sessions.length === 0) return <p className="px-3 py-2 text-sm text-stone-500">No chats yet.</p>;
  const roomy = variant === "roomy";
  return (
    <ul className={roomy ? "divide-y divide-stone-200 overflow-hidden rounded-xl border border-stone-200 bg-white" : "space-y-0.5"}>
      {sessions.map((s) => {
        const active = s.id === activeId;
        return (
          <li key={s.id}>
            <Link
              href={`/s/${s.id}`}
              data-testid="session-link"
              data-session-id={s.id}
              aria-current={active ? "page" : undefined}
              className={[
                "flex items-center gap-2 outline-none focus-visible:ring-2 focus-visible:ring-indigo-500",
                roomy ? "px-4 py-3 hover:bg-stone-50" : "rounded-lg px-3 py-2 text-sm hover:bg-stone-200/60",
                active ? "bg-white font-medium text-stone-900 shadow-sm ring-1 ring-stone-200" : "text-stone-700",
              ].join(" ")}
            >
              <span className="min-w-0 flex-1 truncate">{s.title}</span>
              {roomy && <span className="shrink-0 text-xs text-stone-400">{timeAgo(s.updatedAt)}</span>}
              {s.pendingCount > 0 && (
                <span
                  data-testid="session-pending-count"
                  title={`${s.pendingCount} question${s.pendingCount === 1 ? "" : "s"} waiting`}
                  className="shrink-0 rounded-full bg-amber-400 px-1.5 text-xs font-semibold leading-5 text-amber-950"
                >
                  {s.pendingCount}
                </span>
              )}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

function timeAgo(iso: string): string {
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}
