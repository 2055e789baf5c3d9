import { Box, Text, useInput } from "ink";
import { LineInput } from "./LineInput";
import { useState } from "react";
import type { Ack } from "../protocol/socket";

interface MessageInputProps {
  onSend: (text: string) => Promise<Ack<unknown>>;
  /** Esc stops the session's running work, when there is some. */
  onStop: (() => void) | null;
}

/** The input line: Enter sends; a refused message keeps its text and says why. */
export function MessageInput({ onSend, onStop }: MessageInputProps) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useInput((_input, key) => {
    if (key.escape && onStop) onStop();
  });

  const send = async (value: string) => {
    const message = value.trim();
    if (!message || sending) return;
    setSending(true);
    setError(null);
    const res = await onSend(message);
    setSending(false);
    if (res.ok) setText("");
    else setError(res.error.message);
  };

  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderColor={sending ? "gray" : "cyan"} paddingX={1}>
        <Text color="cyan">{"› "}</Text>
        <LineInput
          value={text}
          onChange={(value) => {
            setText(value);
            setError(null);
          }}
          onSubmit={(value) => void send(value)}
          placeholder="Message the agent (/help for commands)"
        />
      </Box>
      {error ? <Text color="red">{error}</Text> : null}
    </Box>
  );
}
