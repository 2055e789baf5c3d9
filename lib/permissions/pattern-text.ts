/**
 * Rule patterns as text: in every pattern `\` makes the next character literal, so text taken
 * from a call (a path, a command) is escaped into a pattern that matches exactly it.
 */

/** Text as a pattern that matches exactly it: glob characters escaped. */
export function escapePattern(text: string): string {
  return text.replace(/[\\*?[\]{}()!+@|]/g, "\\$&");
}

/** The text an escaped pattern stands for (`\x` is `x`); `*` at `wild` indexes marks an unescaped star. */
export function unescapePattern(pattern: string): { text: string; wild: number[] } {
  let text = "";
  const wild: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\" && i + 1 < pattern.length) text += pattern[++i];
    else {
      if (ch === "*") wild.push(text.length);
      text += ch;
    }
  }
  return { text, wild };
}
