import { useRef, useState, type RefObject } from "react";
import { useCardKeys } from "./use-card-keys";

/**
 * A card's decline row and keyboard: Escape opens the row (or focuses its field), Escape inside it
 * closes it and gives the focus back to the card; number keys 1…`maxDigit` pick; Enter submits. Returns the props
 * a `DeclineBar` takes (with `busy` and `hint` added by the card), and the keyboard's state for the card to show.
 */
export function useDecline({
  card,
  pick,
  submit,
  maxDigit,
  onDecline,
}: {
  card: RefObject<HTMLElement | null>;
  pick: (n: number) => void;
  submit?: () => void;
  maxDigit: number;
  onDecline: (message: string | undefined) => unknown;
}) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const inputRef = useRef<HTMLInputElement>(null);
  const escape = (target: HTMLElement) => {
    if (target === inputRef.current) {
      setOpen(false);
      focusFirst();
    } else if (open) inputRef.current?.focus();
    else setOpen(true);
  };
  const keys = useCardKeys(card, { pick, escape, submit }, maxDigit);
  const focusFirst = keys.focusFirst;
  const bar = {
    open,
    onOpen: () => setOpen(true),
    onCancel: () => {
      setOpen(false);
      focusFirst();
    },
    text,
    onText: setText,
    onDecline: () => onDecline(text.trim() || undefined),
    inputRef,
  };
  return { open, setOpen, focusFirst, bar, keys };
}
