import path from "node:path";
import picomatch from "picomatch";
import { clip } from "../../protocol/bounded-text";
import { AppError } from "../../protocol/errors";

/**
 * Permission rule patterns. A rule names a tool and a pattern matched against a tool call's
 * subject, by the subject's kind:
 * - `path` (`docs/**`, `src/*.{ts,tsx}`): a glob. `*` and `?` stay within one folder, `**` as a
 *   whole segment crosses folders (`docs/**` is `docs` and everything below it), `[a-z]` and
 *   `[!x]` are classes, `{a,b}` alternatives; dot files match. No extglobs or `!` negation: those
 *   characters are themselves. The path is normalised first (`./a` is `a`, `docs/../x` is `x`), so
 *   `..` cannot climb out of a matching folder.
 * - `command` and `text` (`npm test*`, `rm -rf*`): `*` matches anything (spaces, `/`, `..`); every
 *   other character is itself. One exception keeps allow rules from allowing more than they say:
 *   in an `allow` rule for a command, `*` stops at shell operators (`;` `&` `|` `<` `>` a newline,
 *   a backtick, `$(`), so `ls*` allows `ls -la` but not `ls; rm -rf ~` (that call falls through to
 *   the other rules and the tool's default). `deny` and `ask` rules match across them.
 * In both, `\` makes the next character literal, and the pattern `*` alone matches every call of
 * its tool, whatever the subject. A pattern must be a valid glob either way (`checkPattern`,
 * picomatch with strict brackets): brackets balanced, or escaped.
 *
 * Matching runs the pattern as a small automaton over the subject, in time proportional to their
 * lengths' product: a backtracking regular expression (picomatch's own) took minutes on
 * `*a*a*a*a*a*a*a*a*a*a*b` against a long command, with the server's event loop held all along.
 */

/** Most alternatives `{a,b}` may expand to in one pattern. */
const MAX_ALTERNATIVES = 64;

/** Throws a 400 naming the pattern when it is not a valid pattern (empty, unbalanced brackets, too many alternatives). */
export function checkPattern(pattern: string): void {
  const shown = JSON.stringify(clip(String(pattern), 200));
  if (typeof pattern !== "string" || pattern.trim() === "") throw new AppError("bad_request", `Invalid pattern ${shown}: a pattern may not be empty.`);
  try {
    picomatch.makeRe(pattern, { dot: true, strictBrackets: true });
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/\s*-\s*use .*$/, "") : "not a valid glob";
    throw new AppError("bad_request", `Invalid pattern ${shown}: ${why} (escape a literal bracket with \\).`);
  }
  try {
    compile(pattern, "path");
  } catch (err) {
    throw new AppError("bad_request", `Invalid pattern ${shown}: ${(err as Error).message}.`);
  }
}

// ---------------------------------------------------------------------------------------------
// The automaton: one state per token, epsilon moves only forward.

type Token =
  | { k: "lit"; ch: string }
  /** One character (not `/` in a path). */
  | { k: "one"; test: (ch: string) => boolean }
  /** Any run of characters `allowed` takes (epsilon to the next token, a loop on itself). */
  | { k: "loop"; allowed: (ch: string, next: string | undefined) => boolean }
  /** Epsilon to the next token and to `to`. */
  | { k: "fork"; to: number };

type MatchMode = "path" | "anything" | "one-command";

const notSlash = (ch: string) => ch !== "/";
const anyChar = () => true;
const SHELL_OPERATORS = new Set([";", "&", "|", "<", ">", "\n", "\r", "`"]);
const withinOneCommand = (ch: string, next: string | undefined) => !SHELL_OPERATORS.has(ch) && !(ch === "$" && next === "(");

/** The token lists of a pattern (one per brace alternative of a path pattern). */
function compile(pattern: string, mode: MatchMode): Token[][] {
  if (mode !== "path") return [commandTokens(Array.from(pattern), mode === "one-command" ? withinOneCommand : anyChar)];
  return expandBraces(pattern).map((alternative) => pathTokens(Array.from(alternative)));
}

function commandTokens(p: string[], star: (ch: string, next: string | undefined) => boolean): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < p.length; i++) {
    const ch = p[i]!;
    if (ch === "\\" && i + 1 < p.length) tokens.push({ k: "lit", ch: p[++i]! });
    else if (ch === "*") {
      while (p[i + 1] === "*") i++;
      tokens.push({ k: "loop", allowed: star });
    } else tokens.push({ k: "lit", ch });
  }
  return tokens;
}

function pathTokens(p: string[]): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < p.length) {
    const ch = p[i]!;
    if (ch === "\\" && i + 1 < p.length) {
      tokens.push({ k: "lit", ch: p[i + 1]! });
      i += 2;
    } else if (ch === "*") {
      let j = i;
      while (p[j] === "*") j++;
      const segmentStart = i === 0 || (p[i - 1] === "/" && p[i - 2] !== "\\");
      const segmentEnd = j === p.length || p[j] === "/";
      if (j - i >= 2 && segmentStart && segmentEnd) {
        const at = tokens.length;
        if (j < p.length) {
          // `**/`: nothing, or any folders (`a/**/b` is `a/b`, `a/x/y/b` …).
          tokens.push({ k: "fork", to: at + 3 }, { k: "loop", allowed: anyChar }, { k: "lit", ch: "/" });
          j++;
        } else if (i > 0) {
          // `/**` at the end: the folder itself, or anything below it.
          tokens.pop();
          tokens.push({ k: "fork", to: at + 2 }, { k: "lit", ch: "/" }, { k: "loop", allowed: anyChar });
        } else tokens.push({ k: "loop", allowed: anyChar });
      } else tokens.push({ k: "loop", allowed: notSlash });
      i = j;
    } else if (ch === "?") {
      tokens.push({ k: "one", test: notSlash });
      i++;
    } else if (ch === "[") {
      const parsed = bracketClass(p, i);
      if (parsed) {
        tokens.push({ k: "one", test: parsed.test });
        i = parsed.end;
      } else {
        tokens.push({ k: "lit", ch });
        i++;
      }
    } else {
      tokens.push({ k: "lit", ch });
      i++;
    }
  }
  return tokens;
}

/** `[abc]`, `[a-z]`, `[!x]` / `[^x]` (never `/`); null when it does not close. */
function bracketClass(p: string[], start: number): { test: (ch: string) => boolean; end: number } | null {
  let i = start + 1;
  const negated = p[i] === "!" || p[i] === "^";
  if (negated) i++;
  const singles = new Set<string>();
  const ranges: Array<[number, number]> = [];
  let first = true;
  for (; i < p.length; i++) {
    let ch = p[i]!;
    if (ch === "]" && !first) {
      const test = (c: string) => c !== "/" && negated !== (singles.has(c) || ranges.some(([lo, hi]) => c.codePointAt(0)! >= lo && c.codePointAt(0)! <= hi));
      return { test, end: i + 1 };
    }
    first = false;
    if (ch === "\\" && i + 1 < p.length) ch = p[++i]!;
    if (p[i + 1] === "-" && p[i + 2] !== undefined && p[i + 2] !== "]") {
      let hi = p[i + 2]!;
      i += 2;
      if (hi === "\\" && i + 1 < p.length) hi = p[++i]!;
      ranges.push([ch.codePointAt(0)!, hi.codePointAt(0)!]);
    } else singles.add(ch);
  }
  return null;
}

/** `src/*.{ts,tsx}` → `src/*.ts`, `src/*.tsx`; braces without a top-level comma stay as they are. */
function expandBraces(pattern: string): string[] {
  let done: string[] = [];
  let todo = [pattern];
  while (todo.length > 0) {
    const next: string[] = [];
    for (const p of todo) {
      const parts = firstBraces(p);
      if (!parts) done.push(p);
      else for (const alt of parts.alternatives) next.push(parts.before + alt + parts.after);
      if (done.length + next.length > MAX_ALTERNATIVES) throw new Error(`its braces expand to more than ${MAX_ALTERNATIVES} alternatives`);
    }
    todo = next;
  }
  done = [...new Set(done)];
  return done;
}

/** The first unescaped `{…}` with a top-level comma: what is before it, its alternatives, what is after. */
function firstBraces(p: string): { before: string; alternatives: string[]; after: string } | null {
  for (let open = 0; open < p.length; open++) {
    if (p[open] === "\\") {
      open++;
      continue;
    }
    if (p[open] !== "{") continue;
    let depth = 0;
    const commas: number[] = [];
    for (let i = open; i < p.length; i++) {
      const ch = p[i];
      if (ch === "\\") i++;
      else if (ch === "{") depth++;
      else if (ch === ",") {
        if (depth === 1) commas.push(i);
      } else if (ch === "}" && --depth === 0) {
        if (commas.length === 0) break;
        const cuts = [open, ...commas, i];
        const alternatives = cuts.slice(0, -1).map((c, k) => p.slice(c + 1, cuts[k + 1]));
        return { before: p.slice(0, open), alternatives, after: p.slice(i + 1) };
      }
    }
  }
  return null;
}

/** Follows the epsilon moves (all forward, so one pass). */
function close(tokens: Token[], set: Uint8Array): void {
  for (let i = 0; i < tokens.length; i++) {
    if (!set[i]) continue;
    const t = tokens[i]!;
    if (t.k === "loop") set[i + 1] = 1;
    else if (t.k === "fork") {
      set[i + 1] = 1;
      set[t.to] = 1;
    }
  }
}

function run(tokens: Token[], subject: string[]): boolean {
  const m = tokens.length;
  let current = new Uint8Array(m + 1);
  let next = new Uint8Array(m + 1);
  current[0] = 1;
  close(tokens, current);
  for (let p = 0; p < subject.length; p++) {
    const ch = subject[p]!;
    next.fill(0);
    let alive = false;
    for (let i = 0; i < m; i++) {
      if (!current[i]) continue;
      const t = tokens[i]!;
      let to = -1;
      if (t.k === "lit") to = t.ch === ch ? i + 1 : -1;
      else if (t.k === "one") to = t.test(ch) ? i + 1 : -1;
      else if (t.k === "loop") to = t.allowed(ch, subject[p + 1]) ? i : -1;
      if (to >= 0) {
        next[to] = 1;
        alive = true;
      }
    }
    if (!alive) return false;
    close(tokens, next);
    [current, next] = [next, current];
  }
  return current[m] === 1;
}

/** Compiled patterns by mode: rules repeat for every call. */
const compiled = new Map<string, Token[][]>();
const MAX_COMPILED = 1_000;

function tokensOf(pattern: string, mode: MatchMode): Token[][] {
  const key = `${mode}\u0000${pattern}`;
  let found = compiled.get(key);
  if (!found) {
    found = compile(pattern, mode);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, found);
  }
  return found;
}

/** `./docs/a` → `docs/a`, `docs/../.env` → `.env`, `docs/` → `docs`; an empty subject stays empty. */
export function normalisePath(subject: string): string {
  if (subject === "") return subject;
  const normal = path.posix.normalize(subject);
  return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
}

/**
 * Whether a glob pattern matches a subject: `path` (a path pattern; the subject normalised first),
 * `text` (`*` matches anything) or `one-command` (`*` stops at shell operators). `ignoreCase`
 * folds both (deny and ask rules on paths: `.ENV` is `.env` on a case-insensitive disk). A
 * pattern that does not compile matches nothing.
 */
export function matchGlob(pattern: string, subject: string, { kind, ignoreCase = false }: { kind: "path" | "text" | "one-command"; ignoreCase?: boolean }): boolean {
  const mode: MatchMode = kind === "path" ? "path" : kind === "one-command" ? "one-command" : "anything";
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  let alternatives: Token[][];
  try {
    alternatives = tokensOf(p, mode);
  } catch {
    return false;
  }
  const normal = mode === "path" ? normalisePath(subject) : subject;
  const chars = Array.from(ignoreCase ? normal.toLowerCase() : normal);
  return alternatives.some((tokens) => run(tokens, chars));
}

/** Text as a pattern that matches exactly it (glob characters escaped): `escapePattern("npm test") + "*"`. */
export function escapePattern(text: string): string {
  return text.replace(/[\\*?[\]{}()!+@|]/g, "\\$&");
}
