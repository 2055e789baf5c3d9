"use client";

import { mayStopRun } from "@/lib/protocol/run-stop";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import type { Run } from "@/lib/protocol/entities";
import { ChatTranscript } from "@/components/ChatTranscript";
import { Composer } from "@/components/Composer";
import { ConnectionBanner, ConnectionDot } from "@/components/ConnectionBanner";
import { CrossNodeBanner } from "@/components/CrossNodeBanner";
import { LateNotice } from "@/components/LateNotice";
import { LiveAnnouncer } from "@/components/LiveAnnouncer";
import { PermissionsButton } from "@/components/PermissionsPanel";
import { PeopleButton } from "@/components/PeoplePanel";
import { QuestionCard } from "@/components/QuestionCard";
import { RunStatus } from "@/components/RunStatus";
import { EditableTitle } from "@/components/EditableTitle";
import { MobileSidebar, Sidebar } from "@/components/Sidebar";
import { ModelBadge } from "@/components/ModelBadge";
import { activeRuns, activeTurn, latestRun, transcript } from "@/lib/client/session-store";
import { useTabTitle } from "@/lib/client/tab-title";
import { useQuestionNotifications } from "@/lib/client/question-notifications";
import { NotifyDeviceButton } from "@/components/NotifyDevice";
import { AccountMenu } from "@/components/AccountMenu";
import { useDevicePresence } from "@/lib/client/push/use-device-presence";
import { useSession } from "@/lib/client/use-session";
import { useSessions } from "@/lib/client/use-sessions";
import { useMe } from "@/lib/client/use-me";
import { sessionWaitingOn, waitingOn } from "@/lib/client/run-line";
import { mayManage } from "@/lib/client/session-people";

/** Waits a moment before admitting we're still connecting, so a fast connect shows no banner. */
function useAfter(ms: number): boolean {
  const [done, setDone] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setDone(true), ms);
    return () => clearTimeout(t);
  }, [ms]);
  return done;
}

/** A notification's click lands on the card: the element the card focuses when it appears (`useCardKeys`) takes the focus. */
function focusCard() {
  const card = document.querySelector<HTMLElement>('[data-testid="question-card"]');
  (card?.querySelector<HTMLElement>("[data-autofocus]") ?? card)?.focus();
}

/** `viewer`: who is signed in (the gate's principal), so the records of their own answers read "by you". */
export function ChatScreen({ sessionId, viewer = null }: { sessionId: string; viewer?: string | null }) {
  const { state, pending, retryRun, connection, joined, joinError, notice, reply, reject, sendMessage, stopRun, loadOlder, loadingOlder } = useSession(sessionId);
  const list = useSessions();
  const me = useMe();
  const [stopping, setStopping] = useState(false);
  // Each message sent from this tab brings the transcript to its end.
  const [sent, setSent] = useState(0);
  const send = (text: string) => {
    setSent((n) => n + 1);
    return sendMessage(text);
  };
  const slow = useAfter(1500);
  const items = useMemo(() => transcript(state), [state]);
  // Who is looking: the gate's principal, known at once (else whom the session route names).
  const myName = viewer ?? me?.name ?? null;
  const waitingRunIds = useMemo(() => waitingOn(pending, myName), [pending, myName]);
  const listed = list.sessions?.find((s) => s.id === sessionId);
  const title = state.session?.title ?? listed?.title ?? null;
  const session = state.session ?? listed ?? null;
  useTabTitle(title, pending);
  useQuestionNotifications(pending, title, focusCard, myName);
  useDevicePresence(sessionId);

  const running = activeRuns(state);
  const turn = activeTurn(state);
  const stop = async (runs: Run[]) => {
    setStopping(true);
    await Promise.all(runs.map((r) => stopRun(r.id)));
    setStopping(false);
  };
  // Stop shows for the runs this person may stop: they started it, own the chat, or are an administrator.
  const mayStop = (run: Run) => me === null || mayStopRun(run, me);
  // While the composer shows, the turn's Stop sits in it and the header's stops the runs beside it.
  const headerStops = (pending.length > 0 ? running : running.filter((r) => r.id !== turn?.id)).filter(mayStop);

  const sidebarProps = {
    sessions: list.sessions,
    activeId: sessionId,
    onNewChat: list.createSession,
    creating: list.creating,
    error: list.error?.message,
    onRename: list.renameSession,
    onDelete: list.deleteSession,
    me,
  };
  const sidebar = <Sidebar {...sidebarProps} />;

  // Deleted (in this tab or another): its runs were stopped and its cards withdrawn before this.
  if (list.deleted.has(sessionId)) return <ChatGone sidebar={sidebar} testId="session-deleted" text="This chat was deleted." />;
  // No longer shared with me (removed, or I left): shared again, it comes back.
  if (list.left.has(sessionId)) return <ChatGone sidebar={sidebar} testId="session-left" text="This chat is no longer shared with you." />;

  if (joinError?.code === "not_found:session") {
    return (
      <div className="flex h-dvh">
        {sidebar}
        <main className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center">
          <p className="text-lg font-medium text-stone-800">This chat doesn’t exist.</p>
          <Link href="/" className="text-sm font-medium text-indigo-600 hover:underline">
            Back to all chats
          </Link>
        </main>
      </div>
    );
  }

  return (
    <div className="flex h-dvh">
      {sidebar}
      <main className="flex min-w-0 flex-1 flex-col bg-stone-50">
        {/* On a phone its 44 px buttons stand close together: the title gives way to them. */}
        <header className="flex h-14 shrink-0 items-center gap-0.5 border-b border-stone-200 bg-white px-2 sm:gap-3 sm:px-4">
          <MobileSidebar {...sidebarProps} />
          <EditableTitle title={title} onRename={session && !mayManage(session, me) ? undefined : (t) => list.renameSession(sessionId, t)} />
          <ConnectionDot status={connection} />
          <ModelBadge />
          <RunStatus run={latestRun(state)} waiting={sessionWaitingOn(waitingRunIds)} canStop={headerStops.length > 0} stopping={stopping} onStop={() => void stop(headerStops)} />
          <NotifyDeviceButton sessionId={sessionId} />
          <PeopleButton sessionId={sessionId} shared={session?.shared ?? false} me={me} />
          <PermissionsButton sessionId={sessionId} />
          <AccountMenu compact />
        </header>
        <ConnectionBanner status={connection} show={joined || slow} error={joinError ? joinError.message : null} />
        {connection === "connected" && <CrossNodeBanner />}
        <ChatTranscript
          items={items}
          loading={!joined && !joinError}
          onRetry={turn === null && pending.length === 0 ? retryRun : undefined}
          onSuggest={turn === null && pending.length === 0 ? send : undefined}
          sent={sent}
          waitingRunIds={waitingRunIds}
          // With runs side by side each line has its own Stop; one run is stopped from the header.
          onStopRun={running.length > 1 ? (run) => stop([run]) : undefined}
          mayStop={mayStop}
          stopping={stopping}
          viewer={viewer}
          onLoadOlder={state.before === null ? undefined : () => void loadOlder(state.before!)}
          loadingOlder={loadingOlder}
        />
        <div className="shrink-0 border-t border-stone-200 bg-white/80 px-4 pb-4 pt-3 backdrop-blur">
          <LiveAnnouncer questions={pending} />
          {notice && pending.length === 0 && <LateNotice text={notice.text} />}
          {pending.length > 0 ? (
            <QuestionCard questions={pending} onReply={reply} onReject={reject} notice={notice?.text} me={myName} />
          ) : (
            <Composer sessionId={sessionId} onSend={send} busy={turn !== null} onStop={turn && mayStop(turn) ? () => void stop([turn]) : undefined} stopping={stopping} />
          )}
        </div>
      </main>
    </div>
  );
}

/** Where a chat was: it is gone from this person's reach (deleted, or no longer shared with them). */
function ChatGone({ sidebar, testId, text }: { sidebar: React.ReactNode; testId: string; text: string }) {
  return (
    <div className="flex h-dvh">
      {sidebar}
      <main data-testid={testId} className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center">
        <p role="status" className="text-lg font-medium text-stone-800">
          {text}
        </p>
        <Link href="/" className="text-sm font-medium text-indigo-600 hover:underline">
          Back to all chats
        </Link>
      </main>
    </div>
  );
}
