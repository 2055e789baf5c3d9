/**
 * A deny or ask rule for a command read as words, so that a spelling cannot get around it: a
 * pattern of plain words with at most one `*`, at its end (`rm -rf*`, `git push --force *`,
 * `curl *`), names a program and what it must be given; a simple command (simple-commands.ts)
 * matches when it is that program, has every short flag the rule has whether bundled or split
 * (`-rf` ≡ `-r -f` ≡ `-fr`, and for `rm` its long names `--recursive`, `--force`), every long flag,
 * and the rule's other words in order: exactly them, or (with the `*`) them first. A `*` glued to
 * the last word lets that word go on (`--force*` is also `--force-with-lease`).
 */

export interface RuleWords {
  program: string;
  /** The program's name only begins so (`rm*`). */
  programPrefix: boolean;
  short: Set<string>;
  /** Long flags, each with the short one it is another name for (a glued `*` may let it go on: `--force*`). */
  long: Array<{ flag: string; letter?: string }>;
  positional: string[];
  /** Further arguments may follow. */
  open: boolean;
  /** The last word may go on (a `*` glued to it). */
  gluedLast: boolean;
  /** What the last word is. */
  lastKind: "program" | "long" | "short" | "positional";
}

/** Long flags that are short ones by another name, per program. */
const LONG_AS_SHORT: Record<string, Record<string, string>> = {
  rm: { "--recursive": "r", "--force": "f", "--dir": "d" },
  cp: { "--recursive": "r", "--force": "f" },
  mv: { "--force": "f" },
  chmod: { "--recursive": "R" },
  chown: { "--recursive": "R" },
  git: { "--force": "f" },
};

const SHORT_CLUSTER = /^-[A-Za-z0-9]+$/;
const baseName = (word: string) => word.slice(word.lastIndexOf("/") + 1);

/** The rule's words, or null when its pattern is not plain words with one `*` at the end at most (it is then matched as text). */
export function readRuleWords(pattern: string): RuleWords | null {
  const text = pattern.trim();
  if (text.includes("\\") || text.includes("?") || text.includes("[")) return null;
  const stars = [...text].filter((c) => c === "*").length;
  const open = text.endsWith("*");
  if (stars > (open ? 1 : 0)) return null;
  const body = open ? text.slice(0, -1) : text;
  const gluedLast = open && body.length > 0 && !/\s$/.test(body);
  const words = body.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  const rule: RuleWords = { program: baseName(words[0]!), programPrefix: gluedLast && words.length === 1, short: new Set(), long: [], positional: [], open, gluedLast, lastKind: "program" };
  const aliases = LONG_AS_SHORT[rule.program] ?? {};
  for (const word of words.slice(1)) {
    if (word.startsWith("--") && word.length > 2) {
      rule.long.push({ flag: word, letter: aliases[word] });
      rule.lastKind = "long";
    } else if (SHORT_CLUSTER.test(word)) {
      for (const letter of word.slice(1)) rule.short.add(letter);
      rule.lastKind = "short";
    } else {
      rule.positional.push(word);
      rule.lastKind = "positional";
    }
  }
  return rule;
}

/** Whether a simple command's words (its program's name first) are what the rule names. */
export function ruleWordsMatch(rule: RuleWords, words: readonly string[]): boolean {
  const program = words[0];
  if (program === undefined) return false;
  if (rule.programPrefix ? !program.startsWith(rule.program) : program !== rule.program) return false;
  const aliases = LONG_AS_SHORT[program] ?? {};
  const short = new Set<string>();
  const long: string[] = [];
  const positional: string[] = [];
  let flagsEnded = false;
  for (const word of words.slice(1)) {
    if (!flagsEnded && word === "--") flagsEnded = true;
    else if (!flagsEnded && word.startsWith("--")) {
      const name = word.split("=")[0]!;
      if (aliases[name]) short.add(aliases[name]);
      else long.push(word);
    } else if (!flagsEnded && SHORT_CLUSTER.test(word)) for (const letter of word.slice(1)) short.add(letter);
    else positional.push(word);
  }
  for (const letter of rule.short) if (!short.has(letter)) return false;
  const lastLong = rule.gluedLast && rule.lastKind === "long" ? rule.long.at(-1)?.flag : undefined;
  for (const { flag, letter } of rule.long) {
    const found =
      (letter !== undefined && short.has(letter)) || long.some((given) => given === flag || (!flag.includes("=") && given.split("=")[0] === flag) || (flag === lastLong && given.startsWith(flag)));
    if (!found) return false;
  }
  if (rule.open ? positional.length < rule.positional.length : positional.length !== rule.positional.length) return false;
  const lastGlued = rule.gluedLast && rule.lastKind === "positional";
  return rule.positional.every((word, i) => (lastGlued && i === rule.positional.length - 1 ? positional[i]!.startsWith(word) : positional[i] === word));
}
