"use client";

import { NewChatButton } from "@/components/NewChatButton";
import { SessionList } from "@/components/SessionList";
import { Logo } from "@/components/Sidebar";
import { AccountMenu } from "@/components/AccountMenu";
import { useSessions } from "@/lib/client/use-sessions";
import { useMe } from "@/lib/client/use-me";

export function HomeScreen() {
  const { sessions, error, creating, createSession, renameSession, deleteSession } = useSessions();
  const me = useMe();
  return (
    <main className="min-h-dvh bg-stone-50">
      <div className="mx-auto flex max-w-2xl flex-col px-6 py-16 sm:py-24">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <div className="flex items-center gap-2 text-lg font-semibold tracking-tight text-stone-900">
            <Logo className="h-8 w-8" /> Parley
          </div>
          <AccountMenu />
        </div>
        <h1 className="mt-8 text-3xl font-semibold tracking-tight text-stone-900 sm:text-4xl">Agents that ask before they act.</h1>
        <p className="mt-3 max-w-xl text-stone-600">When an agent needs a decision, a question card takes the place of the input — in every open tab. The first answer wins; the others step aside.</p>
        <div className="mt-8">
          <NewChatButton size="large" onClick={() => void createSession()} busy={creating} />
        </div>
        {error && <p className="mt-4 text-sm text-red-600">{error.message}</p>}
        <h2 className="mb-3 mt-14 text-sm font-medium uppercase tracking-wide text-stone-500">Recent chats</h2>
        <SessionList sessions={sessions} variant="roomy" onRename={renameSession} onDelete={deleteSession} me={me} />
      </div>
    </main>
  );
}
