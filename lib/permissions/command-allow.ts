import { wideRisk } from "./command-risks";
import { escapePattern, unescapePattern } from "./pattern-text";
import { quoteWord, shellWords } from "./shell-words";

/**
 * An "allow" rule for a command is word-based: either an exact command (`npm test`: that text,
 * trimmed, and nothing else) or words ending in the word `*` (`npm test *`: these words, then any
 * further arguments a wide rule may span — see `wideRisk`). A `*` glued to the last word reads
 * the same (`npm test*` is `npm test *`, so it never allows `npm testing`). A `*` anywhere else
 * makes the rule invalid. Deny and ask rules are not read here: their `*` matches any text.
 */
export type CommandAllow = { kind: "exact"; command: string } | { kind: "wide"; words: string[] } | { kind: "invalid"; reason: string };

export function readCommandAllow(pattern: string): CommandAllow {
  const { text, wild } = unescapePattern(pattern.trim());
  const endsWild = wild.length > 0 && wild.at(-1) === text.length - 1;
  if (wild.length > (endsWild ? 1 : 0)) {
    return { kind: "invalid", reason: "an allow rule for a command is an exact command, or words followed by ` *` (a `*` only at the end; `\\*` for a literal one)" };
  }
  if (!endsWild) return { kind: "exact", command: text.trim() };
  const prefix = text.slice(0, -1).trim();
  if (prefix === "") return { kind: "wide", words: [] };
  const parsed = shellWords(prefix);
  if (!parsed.ok) return { kind: "invalid", reason: `the words before its \`*\` are not one plain command (${parsed.reason})` };
  return { kind: "wide", words: parsed.words };
}

/** A command's words when a wide rule may span it, else null: kept for the last command, which every rule of a decision reads. */
let last: { command: string; words: string[] | null } | null = null;
function wideWords(command: string): string[] | null {
  if (last?.command !== command) {
    const parsed = shellWords(command);
    last = { command, words: parsed.ok && wideRisk(parsed.words) === null ? parsed.words : null };
  }
  return last.words;
}

/** Whether an allow rule's pattern allows this command. */
export function allowsCommand(pattern: string, command: string): boolean {
  const rule = readCommandAllow(pattern);
  if (rule.kind === "invalid") return false;
  if (rule.kind === "exact") return rule.command === command.trim();
  const words = wideWords(command.trim());
  return words !== null && rule.words.length <= words.length && rule.words.every((w, i) => words[i] === w);
}

/** The allow pattern for exactly this command. */
export const exactCommandPattern = (command: string) => escapePattern(command.trim());

/** The allow pattern for these words with any further arguments: `npm test *`. */
export const wideCommandPattern = (words: readonly string[]) => `${escapePattern(words.map(quoteWord).join(" "))} *`;

/** Words as a person reads them back: `npm run 'my script'`. */
export const commandText = (words: readonly string[]) => words.map(quoteWord).join(" ");
