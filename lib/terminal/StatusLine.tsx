import { Box, Text } from "ink";
import type { Run } from "../protocol/entities";
import type { ConnectionStatus } from "../client/use-session";
import { ownerLabel } from "../client/approval";
import type { WaitingOn } from "../client/run-line";

const CONNECTION: Record<ConnectionStatus, { mark: string; color: string; text: string }> = {
  connected: { mark: "●", color: "green", text: "connected" },
  connecting: { mark: "◌", color: "yellow", text: "connecting…" },
  disconnected: { mark: "○", color: "red", text: "disconnected, reconnecting…" },
};

/** What the session is doing, one line: the connection, the newest run, the keys. */
export function StatusLine({ connection, run, waiting, canStop, error }: { connection: ConnectionStatus; run: Run | null; waiting: WaitingOn; canStop: boolean; error: string | null }) {
  const c = CONNECTION[connection];
  const work =
    run && (run.status === "running" || run.status === "waiting_input")
      ? `${ownerLabel(run.functionName)} ${waiting ? (waiting === "others" ? "is waiting for an answer" : "is waiting for your answer") : `is working${run.progress ? `: ${run.progress}` : "…"}`}`
      : null;
  return (
    <Box justifyContent="space-between">
      <Text>
        <Text color={c.color}>{c.mark}</Text> <Text dimColor>{c.text}</Text>
        {work ? <Text color="yellow"> · {work}</Text> : null}
        {error ? <Text color="red"> · {error}</Text> : null}
      </Text>
      <Text dimColor>{canStop && !waiting ? "Esc stop · " : ""}Ctrl+C quit</Text>
    </Box>
  );
}
