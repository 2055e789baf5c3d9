"use client";

import { AccountMenu } from "@/components/AccountMenu";
import { Composer } from "@/components/Composer";
import { EmptyChat } from "@/components/EmptyChat";
import { MobileSidebar, Sidebar } from "@/components/Sidebar";
import { useMe } from "@/lib/client/use-me";
import { useSessions } from "@/lib/client/use-sessions";

/** The draft of the home page's composer: a chat that does not exist yet. */
const NEW_CHAT_DRAFT = "new-chat";

/** The first page is a chat you can type into: Enter makes the chat, sends the message and opens it. */
export function HomeScreen() {
  const { sessions, error, creating, createSession, startChat, renameSession, deleteSession } = useSessions();
  const me = useMe();
  const sidebarProps = {
    sessions,
    onNewChat: () => void createSession(),
    creating,
    error: error?.message,
    onRename: renameSession,
    onDelete: deleteSession,
    me,
  };
  return (
    <div className="flex h-dvh">
      <Sidebar {...sidebarProps} />
      <main data-testid="home" className="flex min-w-0 flex-1 flex-col bg-stone-50">
        <header className="flex h-14 shrink-0 items-center gap-2 border-b border-stone-200 bg-white px-2 sm:px-4">
          <MobileSidebar {...sidebarProps} />
          <h1 className="truncate text-base font-semibold tracking-tight text-stone-900">New chat</h1>
          <span className="flex-1" />
          <AccountMenu compact />
        </header>
        <div className="min-h-0 flex-1 overflow-y-auto">
          <EmptyChat onSuggest={startChat} />
        </div>
        <div className="shrink-0 border-t border-stone-200 bg-white/80 px-4 pb-4 pt-3 backdrop-blur">
          <Composer sessionId={NEW_CHAT_DRAFT} onSend={startChat} />
        </div>
      </main>
    </div>
  );
}
