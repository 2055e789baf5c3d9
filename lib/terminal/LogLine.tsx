import { Box, Text } from "ink";
import type { LogEntry } from "./transcript-log";
import { questionRecord, speaker } from "./transcript-log";

const ROLE_COLOR = { user: "green", agent: "cyan", system: "gray" } as const;

/** One printed entry of the transcript log; `viewer` is who this terminal is signed in as. */
export function LogLine({ entry, retractedHere, viewer = null }: { entry: LogEntry; retractedHere: boolean; viewer?: string | null }) {
  if (entry.type === "notice") return <Text color={entry.tone === "error" ? "red" : "gray"}>{entry.text}</Text>;
  if (entry.type === "question") {
    const { asked, outcome } = questionRecord(entry.question, viewer);
    return (
      <Box flexDirection="column" marginBottom={1}>
        <Text color="yellow">? {asked}</Text>
        <Text dimColor>
          {"  └ "}
          {outcome}
          {retractedHere ? " (before it was answered here)" : ""}
        </Text>
      </Box>
    );
  }
  const { message } = entry;
  return (
    <Box marginBottom={1}>
      <Box width={7} flexShrink={0}>
        <Text bold color={ROLE_COLOR[message.role]}>
          {speaker(message)}
        </Text>
      </Box>
      <Box flexGrow={1} flexShrink={1}>
        <Text color={message.role === "system" ? "gray" : undefined}>
          {message.text}
          {message.stopped ? <Text dimColor> (stopped)</Text> : null}
        </Text>
      </Box>
    </Box>
  );
}
