import { Box, Text } from "ink";
import type { ApprovalSpec } from "../protocol/permissions";
import { BOUND_TEXT, chainText, isSandboxed } from "../protocol/command-bound";
import { previewShowsSubject, subjectLabel } from "../client/approval";
import { parseUnifiedDiff } from "../client/unified-diff";
import { hiddenCharactersWarning } from "../client/approval";
import { sizeLabel } from "../client/visible-text";
import { VisibleText } from "./VisibleText";

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

/** What the tool will do: a command (whole), a coloured diff with +/− counts, a list or text; hidden characters marked. */
export function ApprovalPreview({ approval, prompt = "" }: { approval: ApprovalSpec; prompt?: string }) {
  const warning = hiddenCharactersWarning(approval, prompt);
  return (
    <Box flexDirection="column">
      {warning ? <Text color="yellow">⚠ {warning}</Text> : null}
      <PreviewBody approval={approval} />
    </Box>
  );
}

function PreviewBody({ approval }: { approval: ApprovalSpec }) {
  const { preview } = approval;
  const subject = previewShowsSubject(approval) ? null : (
    <Text>
      <Text dimColor>{subjectLabel(approval.subjectKind)}: </Text>
      <VisibleText text={approval.subject} />
    </Text>
  );
  switch (preview.type) {
    case "command": {
      // Every line of the command, numbered when there are several: nothing that runs is left out.
      const lines = preview.command.split("\n");
      const width = String(lines.length).length;
      return (
        <Box flexDirection="column">
          {subject}
          <Text dimColor>
            {preview.cwd ? (
              <>
                in <VisibleText text={preview.cwd} /> ·{" "}
              </>
            ) : (
              ""
            )}
            {sizeLabel(preview.command)}
          </Text>
          {lines.map((line, i) => (
            <Text key={i} color="gray">
              {lines.length > 1 ? `${String(i + 1).padStart(width)} ` : ""}
              {i === 0 ? "$ " : "  "}
              <Text color="white">
                <VisibleText text={line} />
              </Text>
            </Text>
          ))}
          {preview.bound && <Text color={isSandboxed(preview.bound) ? (preview.bound === "network" ? "yellow" : "green") : "red"}>{BOUND_TEXT[preview.bound]}</Text>}
          {preview.chain && preview.chain.length > 0 && <Text color="yellow">{chainText(preview.chain)}</Text>}
        </Box>
      );
    }
    case "diff": {
      const diff = parseUnifiedDiff(preview.diff);
      return (
        <Box flexDirection="column">
          {subject}
          <Text>
            <VisibleText text={preview.path} /> <Text color="green">+{diff.added}</Text> <Text color="red">−{diff.removed}</Text>
          </Text>
          <Clipped
            lines={diff.lines.map((l) => (l.kind === "add" ? `+${l.text}` : l.kind === "del" ? `-${l.text}` : l.kind === "context" ? ` ${l.text}` : l.text))}
            render={(line, i) => (
              <Text key={i} color={line.startsWith("+") ? "green" : line.startsWith("-") ? "red" : line.startsWith("@@") ? "cyan" : undefined}>
                <VisibleText text={line} />
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
          <Clipped
            lines={preview.items}
            render={(item, i) => (
              <Text key={i}>
                • <VisibleText text={item} />
              </Text>
            )}
          />
        </Box>
      );
    case "text":
      return (
        <Box flexDirection="column">
          {subject}
          <Clipped
            lines={preview.text.split("\n")}
            render={(line, i) => (
              <Text key={i}>
                <VisibleText text={line} />
              </Text>
            )}
          />
        </Box>
      );
  }
}
