/**
 * A command's words as a POSIX shell would split them, for the commands a wide "allow" rule may
 * match: a small, strict tokenizer rather than a general shell parser (such as shell-quote, which
 * expands `$VAR` to its value and reads backticks as plain text). It understands plain words,
 * `'single'` and `"double"` quotes and `\` escapes, and refuses — with the reason — everything
 * that makes a command more than one program with literal arguments: an operator (`;` `&` `|`),
 * a redirection (`<` `>`), a substitution (`$`, a backtick), a subshell or group (`(` `)`), a
 * newline or other control character, a comment, and what the shell would expand into words
 * nobody saw (an unquoted `*` `?` `[` `]` `{` `}`, a leading `~`). Failing closed is the point:
 * a command it refuses can still be allowed by an exact rule.
 */

export type ShellWords = { ok: true; words: string[] } | { ok: false; reason: string };

const OPERATOR = new Set([";", "&", "|", "<", ">", "(", ")"]);
const EXPANDS = new Set(["*", "?", "[", "]", "{", "}"]);
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;

const refuse = (reason: string): ShellWords => ({ ok: false, reason });

export function shellWords(command: string): ShellWords {
  if (CONTROL.test(command)) return refuse(/[\n\r]/.test(command) ? "a newline" : "a control character");
  const words: string[] = [];
  let word: string | null = null;
  const chars = Array.from(command);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === " " || ch === "\t") {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    if (OPERATOR.has(ch)) return refuse(`the shell operator \`${ch}\``);
    if (ch === "$" || ch === "`") return refuse(`a substitution (\`${ch}\`)`);
    if (ch === "#" && word === null) return refuse("a comment (`#`)");
    if (EXPANDS.has(ch)) return refuse(`\`${ch}\`, which the shell expands`);
    if (ch === "~" && word === null) return refuse("`~`, which the shell expands");
    if (ch === "\\") {
      if (i + 1 >= chars.length) return refuse("a `\\` at the end");
      word = (word ?? "") + chars[++i];
    } else if (ch === "'") {
      const end = chars.indexOf("'", i + 1);
      if (end < 0) return refuse("an unclosed `'`");
      word = (word ?? "") + chars.slice(i + 1, end).join("");
      i = end;
    } else if (ch === '"') {
      let text = "";
      let j = i + 1;
      for (; j < chars.length && chars[j] !== '"'; j++) {
        const c = chars[j]!;
        if (c === "$" || c === "`") return refuse(`a substitution (\`${c}\`)`);
        if (c === "\\") {
          const next = chars[j + 1];
          // Inside double quotes `\` escapes only these; before anything else it is itself.
          if (next === '"' || next === "\\" || next === "$" || next === "`") {
            text += next;
            j++;
            continue;
          }
        }
        text += c;
      }
      if (j >= chars.length) return refuse('an unclosed `"`');
      word = (word ?? "") + text;
      i = j;
    } else word = (word ?? "") + ch;
  }
  if (word !== null) words.push(word);
  if (words.length === 0) return refuse("no command");
  return { ok: true, words };
}

/** A word as shell text that reads back as exactly it: bare when it is plain, else in single quotes. */
export function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
