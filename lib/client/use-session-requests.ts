import { useCallback, useRef, useState, type Dispatch } from "react";
import type { HistoryPage, Run } from "../protocol/entities";
import type { Ack } from "../protocol/socket";
import type { SessionAction } from "./session-store";
import type { SessionTransport } from "./transport";

export interface SessionRequests {
  sendMessage(text: string): Promise<Ack<Run | { command: string }>>;
  stopRun(runId: string): Promise<Ack<Run>>;
  retryRun(runId: string): Promise<Ack<Run>>;
  loadOlder(before: string): Promise<void>;
  loadingOlder: boolean;
}

/** The session's REST commands: each applies its answer at once rather than waiting for the broadcast. */
export function useSessionRequests(sessionId: string, via: () => SessionTransport, dispatch: Dispatch<SessionAction>): SessionRequests {
  const sendMessage = useCallback(
    async (text: string) => {
      // A text command (/answer …) starts no run: its messages arrive over the socket.
      const res = await via().request<Run | { command: string }>(`/api/sessions/${encodeURIComponent(sessionId)}/messages`, { method: "POST", body: { text } });
      if (res.ok && !("command" in res.data)) dispatch({ type: "run.updated", run: res.data });
      return res;
    },
    [sessionId, via, dispatch],
  );

  /** A run command whose answer is the run as it now is: stop, or retry (a failed chat turn runs again, its message not posted twice). */
  const runCommand = useCallback(
    async (runId: string, command: "stop" | "retry") => {
      const res = await via().request<Run>(`/api/runs/${encodeURIComponent(runId)}/${command}`, { method: "POST" });
      if (res.ok) dispatch({ type: "run.updated", run: res.data });
      return res;
    },
    [via, dispatch],
  );
  const stopRun = useCallback((runId: string) => runCommand(runId, "stop"), [runCommand]);
  const retryRun = useCallback((runId: string) => runCommand(runId, "retry"), [runCommand]);

  /** Older history, a page at a time (one request at a time): merged where it belongs. */
  const [loadingOlder, setLoadingOlder] = useState(false);
  const loadingNow = useRef(false);
  const loadOlder = useCallback(
    async (before: string) => {
      if (loadingNow.current) return;
      loadingNow.current = true;
      setLoadingOlder(true);
      try {
        const res = await via().request<HistoryPage>(`/api/sessions/${encodeURIComponent(sessionId)}/history?before=${encodeURIComponent(before)}`);
        if (res.ok) dispatch({ type: "history", sessionId, cursor: before, page: res.data });
      } finally {
        loadingNow.current = false;
        setLoadingOlder(false);
      }
    },
    [sessionId, via, dispatch],
  );

  return { sendMessage, stopRun, retryRun, loadOlder, loadingOlder };
}
