import type { Run, RunStatus as Status } from "@/lib/protocol/entities";
import { StopButton } from "./StopButton";
import type { WaitingOn } from "@/lib/client/run-line";

interface RunStatusProps {
  run: Run | null;
  /** Whom the session's pending questions wait for (perhaps a child run's, while this run works): the viewer, only other people, or none. */
  waiting: WaitingOn;
  /** True while any run of the session is running or waiting for input. */
  canStop: boolean;
  stopping: boolean;
  onStop: () => void;
}

const LABEL: Record<Status, { text: string; dot: string }> = {
  running: { text: "Working", dot: "bg-indigo-500 motion-safe:animate-pulse" },
  waiting_input: { text: "Waiting for you", dot: "bg-amber-500 motion-safe:animate-pulse" },
  succeeded: { text: "Done", dot: "bg-emerald-500" },
  failed: { text: "Failed", dot: "bg-red-500" },
  cancelled: { text: "Stopped", dot: "bg-stone-400" },
};

/** Every pending question waits for someone else: the viewer has nothing to answer. */
const OTHERS = { text: "Waiting for others", dot: "bg-amber-500 motion-safe:animate-pulse" };

export function RunStatus({ run, waiting, canStop, stopping, onStop }: RunStatusProps) {
  if (!run) return null;
  const waits = run.status === "waiting_input" || (run.status === "running" && waiting !== false);
  const label = waits ? (waiting === "others" ? OTHERS : LABEL.waiting_input) : LABEL[run.status];
  // On a phone the header keeps the dot; the words stay for screen readers. Beside a Stop they need a wide header (the title comes first).
  const words = canStop ? "xl:not-sr-only" : "sm:not-sr-only";
  return (
    // On a phone a finished run's dot beside the connection's would read as a second connection light: it shows while work goes on.
    // With its Stop it does not shrink (the title does), and on a phone the Stop's square alone says work goes on.
    <div className={`${run.status === "running" || run.status === "waiting_input" ? "flex" : "hidden sm:flex"} ${canStop ? "shrink-0" : "min-w-0"} items-center sm:gap-3`}>
      <div
        data-testid="run-status"
        data-status={run.status}
        role="status"
        aria-label={run.progress ? `${label.text} · ${run.progress}` : label.text}
        title={run.error ?? label.text}
        className="flex min-w-0 items-center gap-2 text-sm text-stone-600"
      >
        <span aria-hidden className={`h-2 w-2 shrink-0 rounded-full ${label.dot} ${canStop ? "hidden sm:block" : ""}`} />
        <span className={`sr-only min-w-0 truncate font-medium ${words}`}>{label.text}</span>
        {/* not-sr-only lets the words wrap again: the inner span keeps them on one line, cut at its width. */}
        {run.progress && (
          <span className={`sr-only min-w-0 text-stone-500 ${words}`}>
            <span className="block max-w-64 truncate">· {run.progress}</span>
          </span>
        )}
      </div>
      {canStop && <StopButton testId="stop-run" onStop={onStop} stopping={stopping} compact />}
    </div>
  );
}
