import { VisibleText } from "./VisibleText";
import { Box, Text } from "ink";
import { useRef, useState, type ReactNode } from "react";
import type { JsonValue, Question } from "../protocol/question";
import { approvalTitle, ownerLabel } from "../client/approval";
import { formatCountdown, useCountdown } from "../client/use-countdown";

/** The countdown shows only when the deadline is near. */
const NEAR_SECONDS = 5 * 60;

export interface SendAck {
  ok: boolean;
  error?: { message: string; details?: unknown };
}

export interface PromptProps {
  question: Question;
  /** "1 of 2" when several wait; Tab moves between them. */
  position: { index: number; count: number };
  onReply: (question: Question, value: JsonValue) => Promise<SendAck>;
  onReject: (question: Question, message?: string) => Promise<SendAck>;
  onNext: () => void;
  /** A lost race, e.g. "Already answered in a browser tab". */
  notice: string | null;
}

/**
 * A prompt's key handling and sending: each press builds on the state the one before left (keys
 * of one chunk arrive before a render), and one reply or decline is on its way at a time.
 */
export function usePromptMachine<S, K, E extends { type: "reply"; value: JsonValue } | { type: "reject"; message: string | null }>(
  initial: () => S,
  step: (state: S, key: K) => { state: S; effect: E | null },
  { question, onReply, onReject }: Pick<PromptProps, "question" | "onReply" | "onReject">,
  onRefused?: (error: NonNullable<SendAck["error"]>) => void,
) {
  const [state, setState] = useState(initial);
  const latest = useRef(state);
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const press = (key: K) => {
    if (sending) return;
    const next = step(latest.current, key);
    latest.current = next.state;
    setState(next.state);
    if (!next.effect) return;
    const effect = next.effect;
    setSending(true);
    setFailure(null);
    void (effect.type === "reply" ? onReply(question, effect.value) : onReject(question, effect.message ?? undefined)).then((ack) => {
      setSending(false);
      if (ack.ok) return;
      setFailure(ack.error?.message ?? "It did not go through. Try again.");
      if (ack.error) onRefused?.(ack.error);
    });
  };
  /** Changes the state from outside a key press (the server's answer). */
  const update = (change: (current: S) => S) => {
    latest.current = change(latest.current);
    setState(latest.current);
  };
  return { state, press, sending, failure, update };
}

/** The box around a prompt: who asks, the question, its detail; then the body, errors and the key hint. */
export function PromptFrame({
  question,
  position,
  notice,
  failure,
  hint,
  children,
}: Pick<PromptProps, "question" | "position" | "notice"> & { failure: string | null; hint: string; children: ReactNode }) {
  const seconds = useCountdown(question.expiresAt);
  const title = question.approval ? approvalTitle(question.owner, question.approval.tool) : `${ownerLabel(question.owner)} asks`;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={question.approval?.dangerous ? "red" : "yellow"} paddingX={1}>
      <Box justifyContent="space-between">
        <Text bold color="yellow">
          ? {title}
          {question.approval?.dangerous ? <Text color="red"> (can change your system)</Text> : null}
        </Text>
        <Text dimColor>
          {seconds !== null && seconds <= NEAR_SECONDS ? `${formatCountdown(seconds)} left  ` : ""}
          {position.count > 1 ? `${position.index + 1} of ${position.count} · Tab next` : ""}
        </Text>
      </Box>
      <Text bold>
        <VisibleText text={question.prompt} />
      </Text>
      {question.detail ? (
        <Text dimColor>
          <VisibleText text={question.detail} />
        </Text>
      ) : null}
      {children}
      {failure ? <Text color="red">{failure}</Text> : null}
      {notice ? <Text color="yellow">{notice}</Text> : null}
      <Text dimColor>{hint}</Text>
    </Box>
  );
}
