/**
 * The simple commands a shell line runs, each as the words its program gets, for deny and ask
 * rules: what a rule names must be caught however it is spelled. The line is read the way the
 * shell reads it (quotes, escapes, repeated blanks, `\` line joins, comments), split at every
 * operator (`;` `&` `|` `&&` `||` newlines, subshells, `$(…)` and backticks, whose commands count
 * too), redirections dropped; then what leads to the program is taken away (environment
 * assignments, `command`, `env`, `nice`, `sudo`, `busybox`, `timeout 5` …, `sh -c '…'` read
 * again), and the program is named by its last path part (`/bin/rm` is `rm`).
 *
 * Unlike shellWords (what an allow rule may span, refusing all this), it never refuses: it is
 * read to find more matches for rules that deny or ask, never fewer.
 */

/** Programs that run the program named after them, and how many words of their own they take. */
const WRAPPERS: Record<string, { argFlags?: string; positional?: number }> = {
  command: {},
  builtin: {},
  exec: { argFlags: "a" },
  env: { argFlags: "uCS" },
  nice: { argFlags: "n" },
  ionice: { argFlags: "cnp" },
  nohup: {},
  setsid: {},
  time: {},
  sudo: { argFlags: "ugpChDrtTU" },
  doas: { argFlags: "uC" },
  stdbuf: { argFlags: "ioe" },
  timeout: { argFlags: "sk", positional: 1 },
  busybox: {},
  xargs: { argFlags: "IinLlPsdEa" },
  unbuffer: {},
  flock: { argFlags: "wE", positional: 1 },
  chroot: { positional: 1 },
  chrt: { positional: 1 },
  taskset: { positional: 1 },
  "{": {},
  "!": {},
  if: {},
  then: {},
  else: {},
  elif: {},
  do: {},
  while: {},
  until: {},
};

/** Shells whose `-c` argument is itself a command line. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "busybox-sh"]);

const MAX_DEPTH = 4;

interface Lexed {
  segments: string[][];
  /** Command lines found inside (`$(…)`, backticks, `sh -c '…'`), read the same way. */
  nested: string[];
}

/** The text of a `$(…)` (from after its `(`) up to its closing `)`, and where that is; quotes respected. */
function substitution(chars: string, from: number): { text: string; end: number } {
  let depth = 1;
  let quote: string | null = null;
  for (let i = from; i < chars.length; i++) {
    const ch = chars[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"') i++;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "\\") i++;
    else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return { text: chars.slice(from, i), end: i };
  }
  return { text: chars.slice(from), end: chars.length };
}

/** Characters that end a run of plain ones. */
const SPECIAL = /[\\'"$`\s#;&|()<>]/g;

function lex(line: string): Lexed {
  // Code units, not code points: every character the shell treats specially is ASCII.
  const chars = line;
  const segments: string[][] = [];
  const nested: string[] = [];
  let words: string[] = [];
  let word: string | null = null;
  let dropNext = false;
  const endWord = () => {
    if (word !== null) {
      if (dropNext) dropNext = false;
      else words.push(word);
    }
    word = null;
  };
  const endSegment = () => {
    endWord();
    if (words.length > 0) segments.push(words);
    words = [];
  };
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "\\") {
      if (chars[i + 1] === "\n") i++;
      else if (i + 1 < chars.length) word = (word ?? "") + chars[++i];
    } else if (ch === "'") {
      const end = chars.indexOf("'", i + 1);
      const stop = end < 0 ? chars.length : end;
      word = (word ?? "") + chars.slice(i + 1, stop);
      i = stop;
    } else if (ch === '"') {
      let text = "";
      let j = i + 1;
      for (; j < chars.length && chars[j] !== '"'; j++) {
        const c = chars[j]!;
        if (c === "\\" && ['"', "\\", "$", "`", "\n"].includes(chars[j + 1] ?? "")) {
          if (chars[j + 1] !== "\n") text += chars[j + 1];
          j++;
        } else if (c === "$" && chars[j + 1] === "(") {
          const sub = substitution(chars, j + 2);
          nested.push(sub.text);
          j = sub.end;
        } else if (c === "`") {
          const end = chars.indexOf("`", j + 1);
          nested.push(chars.slice(j + 1, end < 0 ? chars.length : end));
          j = end < 0 ? chars.length : end;
        } else text += c;
      }
      word = (word ?? "") + text;
      i = j;
    } else if (ch === "$" && chars[i + 1] === "(") {
      const sub = substitution(chars, i + 2);
      nested.push(sub.text);
      word ??= "";
      i = sub.end;
    } else if (ch === "`") {
      const end = chars.indexOf("`", i + 1);
      nested.push(chars.slice(i + 1, end < 0 ? chars.length : end));
      word ??= "";
      i = end < 0 ? chars.length : end;
    } else if (ch === " " || ch === "\t") endWord();
    else if (ch === "#" && word === null) {
      while (i + 1 < chars.length && chars[i + 1] !== "\n") i++;
    } else if (";&|()\n\r".includes(ch)) endSegment();
    else if (ch === "<" || ch === ">") {
      // `2>`: the number was the descriptor, not a word.
      if (word !== null && /^\d+$/.test(word)) word = null;
      endWord();
      while (chars[i + 1] === "<" || chars[i + 1] === ">" || chars[i + 1] === "&" || chars[i + 1] === "|") i++;
      dropNext = true;
    } else {
      // A run of plain characters at once: a long word costs one slice, not one string per character.
      SPECIAL.lastIndex = i + 1;
      const next = SPECIAL.exec(chars);
      const end = next ? next.index : chars.length;
      word = (word ?? "") + chars.slice(i, end);
      i = end - 1;
    }
  }
  endSegment();
  return { segments, nested };
}

/** A program's name as rules compare it: its last path part. */
const baseName = (word: string) => word.slice(word.lastIndexOf("/") + 1);

/** The words from the program on: assignments and wrappers taken away; a shell's `-c` line handed back to be read too. */
function unwrap(words: string[], nested: string[]): string[] {
  let rest = words;
  for (let guard = 0; guard < 32 && rest.length > 0; guard++) {
    const first = rest[0]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) {
      rest = rest.slice(1);
      continue;
    }
    const name = baseName(first);
    const wrapper = WRAPPERS[name];
    if (!wrapper) break;
    let i = 1;
    while (i < rest.length && rest[i]!.startsWith("-") && rest[i] !== "-") {
      const flag = rest[i]!;
      if (flag === "--") {
        i++;
        break;
      }
      // `env -S 'rm -rf /'` splits its argument into a command line.
      if (name === "env" && (flag === "-S" || flag.startsWith("--split-string"))) nested.push(flag.includes("=") ? flag.slice(flag.indexOf("=") + 1) : (rest[i + 1] ?? ""));
      const takesArg = !flag.startsWith("--") && flag.length === 2 && (wrapper.argFlags ?? "").includes(flag[1]!);
      i += takesArg ? 2 : 1;
    }
    if (name === "env") while (i < rest.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[i]!)) i++;
    i += wrapper.positional ?? 0;
    rest = rest.slice(i);
  }
  if (rest.length === 0) return rest;
  const program = baseName(rest[0]!);
  if (SHELLS.has(program)) {
    const c = rest.findIndex((w, i) => i > 0 && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(w));
    if (c > 0 && rest[c + 1] !== undefined) nested.push(rest[c + 1]!);
  }
  return [program, ...rest.slice(1)];
}

/** Every simple command of a shell line, each as its program's name and its arguments. */
export function simpleCommands(line: string): string[][] {
  const found: string[][] = [];
  let todo = [line];
  for (let depth = 0; depth < MAX_DEPTH && todo.length > 0; depth++) {
    const next: string[] = [];
    for (const text of todo) {
      const { segments, nested } = lex(text);
      next.push(...nested);
      for (const segment of segments) {
        const words = unwrap(segment, next);
        if (words.length > 0 && !["fi", "done", "}", "esac"].includes(words[0]!)) found.push(words);
      }
    }
    todo = next;
  }
  return found;
}
