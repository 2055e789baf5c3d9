import { Fragment } from "react";
import { visibleParts } from "@/lib/client/visible-text";

/**
 * Text with its control, bidirectional and invisible characters shown as marked chips instead of
 * applied (lib/client/visible-text.ts). Isolated left-to-right, so nothing around it reorders it.
 */
export function VisibleText({ text, tone = "light", markNewlines = false }: { text: string; tone?: "light" | "dark"; markNewlines?: boolean }) {
  const chip = tone === "dark" ? "border-amber-400/70 bg-amber-400/20 text-amber-200" : "border-amber-400 bg-amber-100 text-amber-900";
  return (
    <bdi dir="ltr">
      {visibleParts(text).map((part, i) =>
        part.mark ? (
          <span
            key={i}
            data-testid="hidden-char"
            data-code={part.code}
            role="img"
            title={`${part.code} ${part.name}: shown, not applied`}
            aria-label={`hidden character ${part.label}, ${part.name}`}
            className={`mx-px inline-block rounded border px-1 align-baseline font-mono text-[0.75em] font-semibold leading-tight not-italic ${chip}`}
          >
            {part.label}
          </span>
        ) : markNewlines && part.text.includes("\n") ? (
          // On one line (a label, a hint), a newline is a mark too: the text must not read as one line.
          <Fragment key={i}>
            {part.text.split(/(\n+)/).map((piece, j) =>
              j % 2 === 1 ? (
                <span
                  key={j}
                  data-testid="newline-mark"
                  role="img"
                  aria-label={piece.length === 1 ? "new line" : `${piece.length} new lines`}
                  className={`mx-px inline-block rounded border px-0.5 align-baseline text-[0.75em] leading-tight ${chip}`}
                >
                  ↵{piece.length > 1 ? `×${piece.length}` : ""}
                </span>
              ) : (
                piece
              ),
            )}
          </Fragment>
        ) : (
          <Fragment key={i}>{part.text}</Fragment>
        ),
      )}
    </bdi>
  );
}

/** A prompt or label whose `inline code` spans are set in monospace, every part made visible. */
export function InlineCodeText({ parts, codeClass }: { parts: Array<{ code: boolean; text: string }>; codeClass: string }) {
  return (
    <>
      {parts.map((part, i) =>
        part.code ? (
          <code key={i} className={codeClass}>
            <VisibleText text={part.text} markNewlines />
          </code>
        ) : (
          <VisibleText key={i} text={part.text} />
        ),
      )}
    </>
  );
}
