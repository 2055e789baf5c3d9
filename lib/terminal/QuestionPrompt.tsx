import { Box, Text, useInput } from "ink";
import { LineInput } from "./LineInput";
import { useRef, useState } from "react";
import type { JsonValue, Question } from "../protocol/question";
import { approvalTitle, ownerLabel } from "../client/approval";
import { formatCountdown, useCountdown } from "../client/use-countdown";
import { ApprovalPreview } from "./ApprovalPreview";
import { initialPrompt, pressKey, promptHint, promptRows, type PromptKey } from "./prompt-keys";

/** The countdown shows only when the deadline is near. */
const NEAR_SECONDS = 5 * 60;

interface QuestionPromptProps {
  question: Question;
  /** "1 of 2" when several wait; Tab moves between them. */
  position: { index: number; count: number };
  onReply: (question: Question, value: JsonValue) => Promise<{ ok: boolean; error?: { message: string } }>;
  onReject: (question: Question, message?: string) => Promise<{ ok: boolean; error?: { message: string } }>;
  onNext: () => void;
  /** A lost race, e.g. "Already answered in a browser tab". */
  notice: string | null;
}

/** A pending question in place of the input line: rows to choose from, or a text field. */
export function QuestionPrompt({ question, position, onReply, onReject, onNext, notice }: QuestionPromptProps) {
  const [state, setState] = useState(() => initialPrompt(question));
  // Keys of one chunk (text, then Enter) arrive before a render: each press builds on the one before.
  const latest = useRef(state);
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const seconds = useCountdown(question.expiresAt);
  const rows = promptRows(question);

  const press = (key: PromptKey) => {
    if (sending) return;
    const step = pressKey(question, latest.current, key);
    latest.current = step.state;
    setState(step.state);
    if (!step.effect) return;
    const effect = step.effect;
    setSending(true);
    setFailure(null);
    void (effect.type === "reply" ? onReply(question, effect.value) : onReject(question, effect.message ?? undefined)).then((ack) => {
      setSending(false);
      if (!ack.ok) setFailure(ack.error?.message ?? "It did not go through. Try again.");
    });
  };

  useInput((input, key) => {
    if (key.tab) return onNext();
    if (key.upArrow) return press({ type: "up" });
    if (key.downArrow) return press({ type: "down" });
    if (key.escape) return press({ type: "escape" });
    // The text field takes Enter and typing itself.
    if (state.mode !== "choose") return;
    if (key.return) return press({ type: "enter" });
    if (input === " ") return press({ type: "space" });
    if (input.length === 1 && !key.ctrl && !key.meta) press({ type: "char", char: input });
  });

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
      <Text bold>{question.prompt}</Text>
      {question.detail ? <Text dimColor>{question.detail}</Text> : null}
      {question.approval ? <ApprovalPreview approval={question.approval} /> : null}
      {state.mode === "choose" || state.mode === "reason"
        ? rows.map((row, i) => {
            const here = i === state.cursor && state.mode === "choose";
            const ticked = row.act.type === "toggle" && state.ticked.includes(row.act.option);
            return (
              <Text key={row.label} color={here ? "cyan" : undefined}>
                {here ? "❯ " : "  "}
                {i < 9 ? `${i + 1}. ` : "   "}
                {question.multi && row.act.type === "toggle" ? (ticked ? "[x] " : "[ ] ") : ""}
                {row.label}
                {row.hint ? <Text dimColor> ({row.hint})</Text> : null}
              </Text>
            );
          })
        : null}
      {state.mode === "text" ? (
        <Box>
          <Text color="cyan">{"❯ "}</Text>
          <LineInput value={state.text} onChange={(value) => press({ type: "edit", value })} onSubmit={() => press({ type: "enter" })} placeholder={rows.length > 0 ? "Your answer" : "Type your answer"} />
        </Box>
      ) : null}
      {state.mode === "reason" ? (
        <Box>
          <Text color="magenta">{question.kind === "approval" ? "Why not? " : "Reason (optional): "}</Text>
          <LineInput value={state.reason} onChange={(value) => press({ type: "edit", value })} onSubmit={() => press({ type: "enter" })} />
        </Box>
      ) : null}
      {state.error ? <Text color="red">{state.error}</Text> : null}
      {failure ? <Text color="red">{failure}</Text> : null}
      {notice ? <Text color="yellow">{notice}</Text> : null}
      <Text dimColor>{sending ? "Sending…" : promptHint(question, state)}</Text>
    </Box>
  );
}
