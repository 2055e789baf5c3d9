import TextInput from "ink-text-input";
import { useRef } from "react";
import { takeLine } from "./line-input";

interface LineInputProps {
  value: string;
  onChange: (value: string) => void;
  /** With the line as typed: Enter can arrive in the same tick as the text, before the value comes back as a prop. */
  onSubmit: (value: string) => void;
  placeholder?: string;
}

/**
 * One line of text. Keys can arrive together in one chunk (pasted text, or Enter typed right after
 * the text): a line break is never kept in the line, where it would break the drawing; one at the
 * end submits.
 */
export function LineInput({ value, onChange, onSubmit, placeholder }: LineInputProps) {
  const latest = useRef(value);
  latest.current = value;
  return (
    <TextInput
      value={value}
      placeholder={placeholder}
      onSubmit={() => onSubmit(latest.current)}
      onChange={(next) => {
        const line = takeLine(next);
        latest.current = line.text;
        onChange(line.text);
        if (line.submit) onSubmit(line.text);
      }}
    />
  );
}
