import { Box, Static, Text, useApp, useInput, useStdout } from "ink";
import { noteTyped } from "./typing-clock";
import { useCallback, useEffect, useRef, useState } from "react";
import type { JsonValue, Question } from "../protocol/question";
import { activeRuns, latestRun } from "../client/session-store";
import type { SessionTransport } from "../client/transport";
import { useSession } from "../client/use-session";
import { sessionWaitingOn, waitingOn } from "../client/run-line";
import { LogLine } from "./LogLine";
import { MessageInput } from "./MessageInput";
import { QuestionPrompt } from "./QuestionPrompt";
import { StatusLine } from "./StatusLine";
import { unprinted, withBacklog, type LogEntry } from "./transcript-log";

export interface ChatAppProps {
  sessionId: string;
  transport: SessionTransport;
  /** Where the same chat opens in a browser, for the header. */
  browserUrl: string;
  /** Called when the session cannot be shown (it does not exist, or is not this caller's). */
  onFatal: (message: string) => void;
  /** Who this terminal is signed in as: their answers read "by you". */
  viewer?: string | null;
}

/**
 * `parley chat`: a session's transcript as a growing log, and below it either the input line or
 * the pending question in its place. Joins like a browser tab; every reconnect's snapshot replays
 * what is pending.
 */
export function ChatApp({ sessionId, transport, browserUrl, onFatal, viewer = null }: ChatAppProps) {
  const { state, connection, joined, joinError, notice, reply, reject, sendMessage, stopRun } = useSession(sessionId, transport);
  const { exit } = useApp();
  // Every key, wherever it went: a question that appears just after does not take the ones that follow (use-key-guard.ts).
  useInput(() => noteTyped());
  // Printed lines are laid out once: at the terminal's width then.
  const { stdout } = useStdout();
  const [log, setLog] = useState<LogEntry[]>([]);
  const printed = useRef(new Set<string>());
  const first = useRef(true);
  const [index, setIndex] = useState(0);
  /** Questions this terminal settled, and those settled elsewhere while on screen here. */
  const settledHere = useRef(new Set<string>());
  const shown = useRef<string | null>(null);
  const [retracted, setRetracted] = useState<ReadonlySet<string>>(new Set());

  // Deleted in a browser tab (or anywhere), or no longer shared with this person: nothing is left to show.
  useEffect(() => {
    const ending =
      (why: string) =>
      ({ id }: { id: string }) => {
        if (id !== sessionId) return;
        onFatal(why);
        exit();
      };
    const onDeleted = ending("This chat was deleted.");
    const onLeft = ending("This chat is no longer shared with you.");
    transport.socket.on("session.deleted", onDeleted);
    transport.socket.on("session.left", onLeft);
    return () => {
      transport.socket.off("session.deleted", onDeleted);
      transport.socket.off("session.left", onLeft);
    };
  }, [transport, sessionId, onFatal, exit]);

  useEffect(() => {
    if (joinError?.code === "not_found:session") {
      onFatal(joinError.message);
      exit();
    }
  }, [joinError, onFatal, exit]);

  useEffect(() => {
    if (!joined) return;
    let fresh = unprinted(state, printed.current);
    if (first.current) fresh = withBacklog(fresh);
    first.current = false;
    for (const entry of fresh) printed.current.add(entry.key);
    if (fresh.length > 0) setLog((l) => [...l, ...fresh]);
  }, [state, joined]);

  const pending = state.pending;
  const current: Question | undefined = pending[Math.min(index, pending.length - 1)];

  // The question on screen left without this terminal's answer: its log record says so.
  useEffect(() => {
    const was = shown.current;
    if (was && !pending.some((q) => q.id === was) && !settledHere.current.has(was)) setRetracted((r) => new Set(r).add(was));
    shown.current = current?.id ?? null;
  }, [pending, current]);

  const answer = useCallback(
    async (question: Question, value: JsonValue) => {
      const ack = await reply(question, value);
      if (ack.ok && (ack.data.outcome === "answered" || ack.data.outcome === "queued")) settledHere.current.add(question.id);
      return ack;
    },
    [reply],
  );
  const decline = useCallback(
    async (question: Question, message?: string) => {
      const ack = await reject(question, message);
      if (ack.ok && (ack.data.outcome === "declined" || ack.data.outcome === "queued")) settledHere.current.add(question.id);
      return ack;
    },
    [reject],
  );

  const running = activeRuns(state);
  const stop = running.length > 0 ? () => void Promise.all(running.map((r) => stopRun(r.id))) : null;
  const header: LogEntry = { key: "header", type: "notice", tone: "info", text: `Parley · ${state.session?.title ?? sessionId} · ${browserUrl}` };

  return (
    <>
      <Static items={joined ? [header, ...log] : []}>
        {(entry) => (
          <Box key={entry.key} width={stdout.columns || 80}>
            <LogLine entry={entry} retractedHere={entry.type === "question" && retracted.has(entry.question.id)} viewer={viewer} />
          </Box>
        )}
      </Static>
      {state.streams.map((s) => (
        <Box key={`${s.runId}:${s.seq}`} marginBottom={1}>
          <Box width={7} flexShrink={0}>
            <Text bold color="cyan">
              agent
            </Text>
          </Box>
          <Box flexGrow={1} flexShrink={1}>
            <Text>
              {s.text}
              <Text color="cyan">▍</Text>
            </Text>
          </Box>
        </Box>
      ))}
      {!joined ? <Text dimColor>{joinError ? joinError.message : "Joining the chat…"}</Text> : null}
      {joined && current ? (
        <QuestionPrompt
          key={current.id}
          question={current}
          me={viewer}
          position={{ index: pending.indexOf(current), count: pending.length }}
          onReply={answer}
          onReject={decline}
          onNext={() => setIndex((i) => (pending.length === 0 ? 0 : (Math.min(i, pending.length - 1) + 1) % pending.length))}
          notice={notice?.text ?? null}
        />
      ) : null}
      {joined && !current ? <MessageInput onSend={sendMessage} onStop={stop} /> : null}
      {notice && !current ? <Text color="yellow">{notice.text}</Text> : null}
      <StatusLine
        connection={connection}
        run={latestRun(state)}
        waiting={sessionWaitingOn(waitingOn(pending, viewer))}
        canStop={stop !== null}
        error={joined && joinError ? joinError.message : null}
      />
    </>
  );
}
