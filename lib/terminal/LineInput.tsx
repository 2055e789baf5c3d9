import TextInput from "ink-text-input";
import { takeLine } from "./line-input";

interface LineInputProps {
  value: string;
  onChange: (value: string) => void;
  /** With the line as submitted (the state may not have caught up with a chunk that ended in Enter). */
  onSubmit: (value: string) => void;
  placeholder?: string;
}

/**
 * One line of text. Keys can arrive together in one chunk (pasted text, or Enter typed right after
 * the text): a line break is never kept in the line, where it would break the drawing; one at the
 * end submits.
 */
export function LineInput({ value, onChange, onSubmit, placeholder }: LineInputProps) {
  return (
    <TextInput
      value={value}
      placeholder={placeholder}
      onSubmit={onSubmit}
      onChange={(next) => {
        const line = takeLine(next);
        onChange(line.text);
        if (line.submit) onSubmit(line.text);
      }}
    />
  );
}
