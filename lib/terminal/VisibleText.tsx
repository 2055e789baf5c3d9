import { Text } from "ink";
import { visibleParts } from "../client/visible-text";

/**
 * Text printed with its control, bidirectional and invisible characters as inverse labels
 * (⟨ESC⟩, ⟨RLO⟩), never written to the terminal as themselves: an escape sequence in a command
 * cannot clear or recolour what the person reads before approving it.
 */
export function VisibleText({ text }: { text: string }) {
  return (
    <>
      {visibleParts(text).map((part, i) =>
        part.mark ? (
          <Text key={i} inverse color="yellow">
            ⟨{part.label}⟩
          </Text>
        ) : (
          part.text
        ),
      )}
    </>
  );
}
