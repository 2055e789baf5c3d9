/**
 * The matching engine under permission rules: a pattern compiled once into a matcher whose time
 * is bounded by the subject's length times the pattern's size in 32-state words, never more.
 *
 * - `anything` (`*` matches any run of characters) and `one-command` (`*` stops at shell
 *   operators) patterns are literal pieces between stars: the first piece anchors the start, the
 *   last the end, and each middle piece is found leftmost with Knuth–Morris–Pratt, so a match
 *   is one pass over the subject whatever the pattern (`*a*a*a…*b` included).
 * - `path` patterns (`*`, `**`, `?`, `[…]`, `{a,b}`) run as one bit-parallel automaton over all
 *   their brace alternatives: a step per subject character costs one operation per 32 states.
 *
 * A backtracking regular expression (picomatch's own) took minutes on `*a*a*a*a*a*a*a*a*a*a*b`
 * against a long command, with the server's event loop held all along.
 */

export type MatchMode = "path" | "anything" | "one-command";

/** The most automaton states one pattern may compile to (its brace alternatives together). */
export const MAX_PATTERN_STATES = 256;
/** The most alternatives `{a,b}` may expand to in one pattern. */
export const MAX_ALTERNATIVES = 64;

/** Characters-times-words of matching done so far: what the property tests hold to a linear bound. */
export const matchWork = { steps: 0 };

export interface CompiledGlob {
  /** The pattern's size: the automaton states it needs (what rule budgets count). */
  readonly states: number;
  test(subject: string): boolean;
}

type Token =
  | { k: "lit"; ch: string }
  /** One character (not `/` in a path). */
  | { k: "one"; test: (ch: string) => boolean }
  /** Any run of characters `allowed` takes (epsilon to the next token, a loop on itself). */
  | { k: "loop"; allowed: (ch: string) => boolean }
  /** Epsilon to the next token and to `to` (an index within the same alternative). */
  | { k: "fork"; to: number };

const notSlash = (ch: string) => ch !== "/";
const anyChar = () => true;

const SHELL_OPERATORS = new Set([";", "&", "|", "<", ">", "\n", "\r", "`"]);
/** Where each shell operator starts (`$(` counts at its `$`): the index of the first at or after each position. */
function nextOperatorIndex(subject: ArrayLike<string>): Int32Array {
  const next = new Int32Array(subject.length + 1);
  next[subject.length] = subject.length;
  for (let i = subject.length - 1; i >= 0; i--) {
    const ch = subject[i]!;
    next[i] = SHELL_OPERATORS.has(ch) || (ch === "$" && subject[i + 1] === "(") ? i : next[i + 1]!;
  }
  return next;
}

/** Compiles a pattern; throws an Error saying why for one too big or too complex. */
export function compileGlob(pattern: string, mode: MatchMode): CompiledGlob {
  return mode === "path" ? pathAutomaton(expandBraces(pattern).map((alternative) => pathTokens(Array.from(alternative)))) : starPieces(pattern, mode);
}

// ---------------------------------------------------------------------------------------------
// Star patterns: literal pieces between `*`, matched leftmost-first in one pass.

/** `npm \*x*y` → pieces ["npm *x", "y"]; `\` makes the next character literal. */
function splitStars(pattern: string): string[] {
  const pieces: string[] = [];
  let piece = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\" && i + 1 < pattern.length) piece += pattern[++i];
    else if (ch === "*") {
      pieces.push(piece);
      piece = "";
      while (pattern[i + 1] === "*") i++;
    } else piece += ch;
  }
  pieces.push(piece);
  return pieces;
}

/** The Knuth–Morris–Pratt failure table of a piece. */
function failureTable(piece: string): Int32Array {
  const fail = new Int32Array(piece.length);
  for (let i = 1, k = 0; i < piece.length; i++) {
    while (k > 0 && piece[i] !== piece[k]) k = fail[k - 1]!;
    if (piece[i] === piece[k]) k++;
    fail[i] = k;
  }
  return fail;
}

/** The first index ≥ from where `piece` occurs in `subject` before `end`, or -1: linear in their lengths. */
function findFrom(subject: string, piece: string, fail: Int32Array, from: number, end: number): number {
  if (piece.length === 0) return from;
  for (let i = from, k = 0; i < end; i++) {
    matchWork.steps++;
    while (k > 0 && subject[i] !== piece[k]) k = fail[k - 1]!;
    if (subject[i] === piece[k]) k++;
    if (k === piece.length) return i - piece.length + 1;
  }
  return -1;
}

function starPieces(pattern: string, mode: "anything" | "one-command"): CompiledGlob {
  const pieces = splitStars(pattern);
  const states = Array.from(pattern).length + 1;
  if (states > MAX_PATTERN_STATES * 4) throw new Error(`it is longer than ${MAX_PATTERN_STATES * 4} characters`);
  const hasOperator = (piece: string) => [...piece].some((ch) => SHELL_OPERATORS.has(ch)) || piece.includes("$(");
  // A star may not cross an operator, and a piece may hold one: leftmost-first is no longer
  // always right there, so the automaton decides (such patterns are short: written by a person).
  if (mode === "one-command" && pieces.length > 1 && pieces.some(hasOperator)) return starAutomaton(pieces);
  const first = pieces[0]!;
  if (pieces.length === 1) return literalGlob(first, states);
  const last = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter((p) => p.length > 0);
  const fails = middle.map(failureTable);
  const fixed = first.length + last.length;
  return {
    states,
    test(subject) {
      matchWork.steps += fixed + 1;
      if (subject.length < fixed || !subject.startsWith(first) || !subject.endsWith(last)) return false;
      const end = subject.length - last.length;
      const ops = mode === "one-command" ? nextOperatorIndex(subject) : null;
      let at = first.length;
      for (let i = 0; i < middle.length; i++) {
        const found = findFrom(subject, middle[i]!, fails[i]!, at, end);
        if (found < 0 || (ops && ops[at]! < found)) return false;
        at = found + middle[i]!.length;
      }
      return !ops || ops[at]! >= end;
    },
  };
}

/** A star pattern with operators in its pieces, as an automaton whose stars stop at operators. */
function starAutomaton(pieces: string[]): CompiledGlob {
  const tokens: Token[] = [];
  pieces.forEach((piece, i) => {
    if (i > 0) tokens.push({ k: "loop", allowed: anyChar });
    for (const ch of piece) tokens.push({ k: "lit", ch });
  });
  return bitAutomaton([tokens], true);
}

// ---------------------------------------------------------------------------------------------
// Path patterns.

function pathTokens(p: string[]): Token[] {
  const tokens: Token[] = [];
  let afterGlobstar = -1;
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
        if (tokens.length === afterGlobstar) {
          // `**/**/` is `**/` and `x/**/**` is `x/**`: kept once, so chains of empty moves stay short.
          if (j < p.length) {
            i = j + 1;
            continue;
          }
          tokens.splice(-3);
        }
        const at = tokens.length;
        if (j < p.length) {
          // `**/`: nothing, or any folders (`a/**/b` is `a/b`, `a/x/y/b` …).
          tokens.push({ k: "fork", to: at + 3 }, { k: "loop", allowed: anyChar }, { k: "lit", ch: "/" });
          afterGlobstar = tokens.length;
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
  const done: string[] = [];
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
  return [...new Set(done)];
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

// ---------------------------------------------------------------------------------------------
// The bit-parallel automaton: state i of an alternative is "its first i tokens matched"; all
// alternatives side by side in one bit set, each ending in its own accepting state.

const MAX_CACHED_CHARS = 512;

/** A subject's characters (code points), kept for the next rule: every rule of a call reads the same subject. */
let lastSubject = "";
let lastChars: string[] = [];
function charsOf(subject: string): string[] {
  if (subject !== lastSubject) {
    lastSubject = subject;
    lastChars = Array.from(subject);
  }
  return lastChars;
}

interface BitAutomaton extends CompiledGlob {
  /** The alternatives (by index) whose accepting state the whole subject reaches. */
  accepted(subject: string): number[];
}

function bitAutomaton(alternatives: Token[][], stopAtOperators = false, maxStates = MAX_PATTERN_STATES): BitAutomaton {
  const states = alternatives.reduce((n, tokens) => n + tokens.length + 1, 0);
  if (states > maxStates) throw new Error(`it is too complex: it needs ${states} matching states, at most ${MAX_PATTERN_STATES} are allowed (fewer alternatives or a shorter pattern)`);
  const words = Math.ceil(states / 32);
  const tokens: Array<Token | null> = [];
  const start = new Uint32Array(words);
  const accept = new Uint32Array(words);
  const epsilon = new Uint32Array(words);
  const forks: Array<[number, number]> = [];
  const set = (mask: Uint32Array, i: number) => {
    mask[i >>> 5]! |= 1 << (i & 31);
  };
  const acceptIndex: number[] = [];
  for (const alternative of alternatives) {
    const offset = tokens.length;
    set(start, offset);
    alternative.forEach((t, i) => {
      tokens.push(t);
      if (t.k === "loop" || t.k === "fork") set(epsilon, offset + i);
      if (t.k === "fork") forks.push([offset + i, offset + t.to]);
    });
    set(accept, tokens.length);
    acceptIndex.push(tokens.length);
    tokens.push(null);
  }

  /** Per character: the states it advances (`lit`, `one`) and the loops it stays in, side by side. */
  const masksByChar = new Map<string, Uint32Array>();
  /** Latin-1 characters by code (operators from 256 on): no hashing on the common path. */
  const masksByCode = new Array<Uint32Array | undefined>(512);
  const masksOf = (ch: string, operator: boolean): Uint32Array => {
    const code = ch.length === 1 ? ch.charCodeAt(0) : 0x10000;
    const slot = code < 256 ? code + (operator ? 256 : 0) : -1;
    const key = operator ? `op${ch}` : ch;
    let masks = slot >= 0 ? masksByCode[slot] : masksByChar.get(key);
    if (masks) return masks;
    masks = new Uint32Array(words * 2);
    tokens.forEach((t, i) => {
      if (!t) return;
      const advances = (t.k === "lit" && t.ch === ch) || (t.k === "one" && t.test(ch));
      const stays = t.k === "loop" && !(stopAtOperators && operator) && t.allowed(ch);
      if (advances) masks[i >>> 5]! |= 1 << (i & 31);
      if (stays) masks[words + (i >>> 5)]! |= 1 << (i & 31);
    });
    if (slot >= 0) masksByCode[slot] = masks;
    else if (masksByChar.size < MAX_CACHED_CHARS) masksByChar.set(key, masks);
    return masks;
  };

  // Epsilon moves go forward only: the longest chain of them is how many rounds a closure needs.
  const forkTarget = new Map(forks);
  const chain = new Int32Array(tokens.length + 1);
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i];
    if (t?.k === "loop") chain[i] = 1 + chain[i + 1]!;
    else if (t?.k === "fork") chain[i] = 1 + Math.max(chain[i + 1]!, chain[forkTarget.get(i)!]!);
  }
  const rounds = chain.reduce((a, b) => Math.max(a, b), 0);
  // Forks jump a fixed distance forward (2 or 3 states): one shifted mask per distance.
  const jumps = [...new Set(forks.map(([from, to]) => to - from))].map((distance) => {
    const mask = new Uint32Array(words);
    for (const [from, to] of forks) if (to - from === distance) set(mask, from);
    return { distance, mask };
  });

  const close = (d: Uint32Array) => {
    for (let round = 0; round < rounds; round++) {
      let carry = 0;
      for (let w = 0; w < words; w++) {
        const moving = d[w]! & epsilon[w]!;
        d[w] = (d[w]! | (moving << 1) | carry) >>> 0;
        carry = moving >>> 31;
      }
      for (const { distance, mask } of jumps) {
        // Shifting by a distance below 32 carries the top bits into the next word.
        let spill = 0;
        for (let w = 0; w < words; w++) {
          const jumping = d[w]! & mask[w]!;
          d[w] = (d[w]! | (jumping << distance) | spill) >>> 0;
          spill = jumping >>> (32 - distance);
        }
      }
    }
  };

  /** The states on after reading the whole subject, or null when none is. */
  const run = (subject: string): Uint32Array | null => {
    const chars = charsOf(subject);
    let d = Uint32Array.from(start);
    let next = new Uint32Array(words);
    close(d);
    const ops = stopAtOperators ? nextOperatorIndex(chars) : null;
    const perStep = words * (1 + rounds);
    matchWork.steps += perStep;
    for (let p = 0; p < chars.length; p++) {
      matchWork.steps += perStep;
      const masks = masksOf(chars[p]!, ops !== null && ops[p] === p);
      let carry = 0;
      let alive = 0;
      for (let w = 0; w < words; w++) {
        const advancing = d[w]! & masks[w]!;
        next[w] = ((advancing << 1) | carry | (d[w]! & masks[words + w]!)) >>> 0;
        carry = advancing >>> 31;
        alive |= next[w]!;
      }
      if (alive === 0) return null;
      close(next);
      [d, next] = [next, d];
    }
    return d;
  };

  return {
    states,
    test(subject) {
      const d = run(subject);
      if (d) for (let w = 0; w < words; w++) if (d[w]! & accept[w]!) return true;
      return false;
    },
    accepted(subject) {
      const d = run(subject);
      if (!d) return [];
      const out: number[] = [];
      acceptIndex.forEach((i, alternative) => {
        if (d[i >>> 5]! & (1 << (i & 31))) out.push(alternative);
      });
      return out;
    },
  };
}

/** A pattern that matches exactly one text, compared whole. */
function literalGlob(text: string, states: number): CompiledGlob {
  return {
    states,
    test: (subject) => {
      matchWork.steps++;
      return subject === text;
    },
  };
}

/** The text a path pattern's alternatives spell when they are one literal (the common "exactly this file"); null otherwise. */
function literalOf(alternatives: Token[][]): string | null {
  if (alternatives.length !== 1 || !alternatives[0]!.every((t) => t.k === "lit")) return null;
  return alternatives[0].map((t) => (t as { ch: string }).ch).join("");
}

function pathAutomaton(alternatives: Token[][]): CompiledGlob {
  // A literal pattern needs no automaton.
  const literal = literalOf(alternatives);
  return literal === null ? bitAutomaton(alternatives) : literalGlob(literal, literal.length + 1);
}

/** Patterns tested together: which of them match a subject. */
export interface CompiledGlobSet {
  /** The indices of the patterns that match. */
  matching(subject: string): number[];
}

/**
 * Several patterns (a session's rules) as one matcher: literal ones by a lookup, star patterns one
 * pass each, and every other path pattern's alternatives side by side in one automaton, so a call
 * costs one step per subject character and 32 states of all the rules together. A pattern that
 * does not compile matches nothing.
 */
export function compileGlobSet(patterns: readonly string[], mode: MatchMode): CompiledGlobSet {
  const literal = new Map<string, number[]>();
  const single: Array<[number, CompiledGlob]> = [];
  const alternatives: Token[][] = [];
  const owner: number[] = [];
  patterns.forEach((pattern, index) => {
    try {
      if (mode !== "path") {
        single.push([index, compileGlob(pattern, mode)]);
        return;
      }
      const tokenLists = expandBraces(pattern).map((alternative) => pathTokens(Array.from(alternative)));
      if (tokenLists.reduce((n, t) => n + t.length + 1, 0) > MAX_PATTERN_STATES) return;
      const text = literalOf(tokenLists);
      if (text !== null) {
        literal.set(text, [...(literal.get(text) ?? []), index]);
        return;
      }
      for (const tokens of tokenLists) {
        alternatives.push(tokens);
        owner.push(index);
      }
    } catch {
      // Matches nothing, as a single pattern that does not compile.
    }
  });
  const together = alternatives.length > 0 ? bitAutomaton(alternatives, false, Infinity) : null;
  return {
    matching(subject) {
      matchWork.steps++;
      const found = new Set<number>(literal.get(subject) ?? []);
      for (const [index, glob] of single) if (glob.test(subject)) found.add(index);
      if (together) for (const alternative of together.accepted(subject)) found.add(owner[alternative]!);
      return [...found].sort((a, b) => a - b);
    },
  };
}
