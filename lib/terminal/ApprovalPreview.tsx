import { Box, Text } from "ink";
import type { ApprovalSpec } from "../protocol/permissions";
import { previewShowsSubject, subjectLabel } from "../client/approval";
import { parseUnifiedDiff } from "../client/unified-diff";

/** How many preview lines a prompt shows before "… N more lines". */
const MAX_LINES = 12;

function Clipped({ lines, render }: { lines: string[]; render: (line: string, i: number) => React.ReactNode }) {
  const shown = lines.slice(0, MAX_LINES);
  return (
    <Box flexDirection="column" marginY={0}>
      {shown.map(render)}
      {lines.length > MAX_LINES ? <Text dimColor>… {lines.length - MAX_LINES} more lines</Text> : null}
    </Box>
  );
}

/** What the tool will do: a command, a coloured diff with +/− counts, a list or text. */
export function ApprovalPreview({ approval }: { approval: ApprovalSpec }) {
  const { preview } = approval;
  const subject = previewShowsSubject(approval) ? null : (
    <Text>
      <Text dimColor>{subjectLabel(approval.subjectKind)}: </Text>
      {approval.subject}
    </Text>
  );
  switch (preview.type) {
    case "command":
      return (
        <Box flexDirection="column">
          {subject}
          <Text color="gray">{preview.cwd ? `${preview.cwd} ` : ""}$ <Text color="white">{preview.command}</Text></Text>
        </Box>
      );
    case "diff": {
      const diff = parseUnifiedDiff(preview.diff);
      return (
        <Box flexDirection="column">
          {subject}
          <Text>
            {preview.path} <Text color="green">+{diff.added}</Text> <Text color="red">−{diff.removed}</Text>
          </Text>
          <Clipped
            lines={diff.lines.map((l) => (l.kind === "add" ? `+${l.text}` : l.kind === "del" ? `-${l.text}` : l.kind === "context" ? ` ${l.text}` : l.text))}
            render={(line, i) => (
              <Text key={i} color={line.startsWith("+") ? "green" : line.startsWith("-") ? "red" : line.startsWith("@@") ? "cyan" : undefined}>
                {line}
              </Text>
            )}
          />
        </Box>
      );
    }
    case "list":
      return (
        <Box flexDirection="column">
          {subject}
          <Clipped lines={preview.items} render={(item, i) => <Text key={i}>• {item}</Text>} />
        </Box>
      );
    case "text":
      return (
        <Box flexDirection="column">
          {subject}
          <Clipped lines={preview.text.split("\n")} render={(line, i) => <Text key={i}>{line}</Text>} />
        </Box>
      );
  }
}
