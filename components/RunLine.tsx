"use client";

import { useEffect, useState } from "react";
import type { Run } from "@/lib/protocol/entities";
import { ownerLabel } from "@/lib/client/approval";
import { formatElapsed, runLineText, startedByText, type WaitingOn } from "@/lib/client/run-line";
import { useNameOf } from "@/lib/client/use-names";
import { StopButton } from "./StopButton";

/** Seconds since an ISO time, ticking while `live`. */
function useElapsed(since: string, live: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, [live]);
  return Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
}

const DOT: Record<Run["status"], string> = {
  running: "bg-indigo-500 motion-safe:animate-pulse",
  waiting_input: "bg-amber-500 motion-safe:animate-pulse",
  succeeded: "bg-emerald-500",
  failed: "bg-red-500",
  cancelled: "bg-stone-400",
};

/** A run in the transcript, where it started: what it is doing now, or how it ended (a child run). */
export function RunLine({ run, waiting, onStop, stopping }: { run: Run; waiting: WaitingOn; onStop?: () => void; stopping: boolean }) {
  const active = run.status === "running" || run.status === "waiting_input";
  const elapsed = useElapsed(run.createdAt, active);
  const name = run.parentRunId === null && run.functionName === "chat" ? "Parley" : ownerLabel(run.functionName);
  const text = runLineText(run, { waiting, name });
  const nameOf = useNameOf();
  return (
    <>
      {run.startedBy && (
        <li data-testid="run-started-by" data-run-id={run.id} className="flex items-center gap-3 py-1 text-xs text-stone-500">
          <span aria-hidden className="h-px flex-1 bg-stone-200" />
          <span className="[overflow-wrap:anywhere]">{startedByText(run.startedBy, name, run.starterId === null ? null : nameOf(run.starterId))}</span>
          <span aria-hidden className="h-px flex-1 bg-stone-200" />
        </li>
      )}
      <li data-testid="run-line" data-run-id={run.id} data-status={run.status} className="ml-9 flex max-w-[85%] items-center gap-2 self-start text-xs text-stone-500">
        <span aria-hidden className={`h-1.5 w-1.5 shrink-0 rounded-full ${DOT[run.status]}`} />
        <span role={active ? "status" : undefined} className="min-w-0 [overflow-wrap:anywhere]">
          {text}
          {active && elapsed >= 2 && <span className="text-stone-500"> · {formatElapsed(elapsed)}</span>}
          {!active && run.finishedAt && <span className="text-stone-500"> · {formatElapsed(Math.round((Date.parse(run.finishedAt) - Date.parse(run.createdAt)) / 1000))}</span>}
        </span>
        {active && onStop && <StopButton testId="run-line-stop" onStop={onStop} stopping={stopping} />}
      </li>
    </>
  );
}
