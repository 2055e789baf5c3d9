import path from "node:path";
import picomatch from "picomatch";
import { clip } from "../../protocol/bounded-text";
import { AppError } from "../../protocol/errors";
import { compileGlob, compileGlobSet, type CompiledGlob, type CompiledGlobSet, type MatchMode } from "./glob-engine";

/**
 * Permission rule patterns. A rule names a tool and a pattern matched against a tool call's
 * subject, by the subject's kind:
 * - `path` (`docs/**`, `src/*.{ts,tsx}`): a glob. `*` and `?` stay within one folder, `**` as a
 *   whole segment crosses folders (`docs/**` is `docs` and everything below it), `[a-z]` and
 *   `[!x]` are classes, `{a,b}` alternatives; dot files match. No extglobs or `!` negation: those
 *   characters are themselves. The path is normalised first (`./a` is `a`, `docs/../x` is `x`), so
 *   `..` cannot climb out of a matching folder.
 * - `command` and `text` (`rm -rf*`): `*` matches anything (spaces, `/`, `..`); every other
 *   character is itself. (An allow rule for a command is word-based instead:
 *   lib/permissions/command-allow.ts, through ./rule-decide.ts.)
 * In both, `\` makes the next character literal, and the pattern `*` alone matches every call of
 * its tool, whatever the subject. A pattern must be a valid glob either way (`checkPattern`,
 * picomatch with strict brackets): brackets balanced, or escaped.
 *
 * Matching is bounded (./glob-engine.ts): one pass over the subject for star patterns, a
 * bit-parallel automaton of at most MAX_PATTERN_STATES states for path patterns.
 */

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
    compileGlob(pattern, "path");
    compileGlob(pattern, "anything");
  } catch (err) {
    throw new AppError("bad_request", `Invalid pattern ${shown}: ${(err as Error).message}.`);
  }
}

/** Compiled patterns by mode and case: rules repeat for every call. */
const compiled = new Map<string, CompiledGlob>();
const MAX_COMPILED = 2_000;

/** A pattern that does not compile, remembered as such: a stored rule is read at every call. */
const NEVER: CompiledGlob = { states: 0, test: () => false };

function compiledOf(pattern: string, mode: MatchMode): CompiledGlob {
  const key = `${mode}\u0000${pattern}`;
  let found = compiled.get(key);
  if (!found) {
    try {
      found = compileGlob(pattern, mode);
    } catch {
      found = NEVER;
    }
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, found);
  }
  return found;
}

/** The most matching states a session's rules may add up to: what bounds one call's matching time (scripts/bench-rules.ts). */
export const MAX_SESSION_RULE_STATES = 4_096;

/** A pattern's size in matching states (Infinity for one that does not compile): what a session's rule budget counts. */
export function patternCost(pattern: string): number {
  const [asPath, asText] = [compiledOf(pattern.trim(), "path"), compiledOf(pattern.trim(), "anything")];
  return asPath === NEVER || asText === NEVER ? Infinity : Math.max(asPath.states, asText.states);
}

/** `./docs/a` → `docs/a`, `docs/../.env` → `.env`, `docs/` → `docs`; an empty subject stays empty. */
export function normalisePath(subject: string): string {
  if (subject === "") return subject;
  if (subject === lastPath.subject) return lastPath.normal;
  const normal = path.posix.normalize(subject);
  lastPath = { subject, normal: normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal };
  return lastPath.normal;
}
/** The last path normalised: every rule of a call reads the same one. */
let lastPath = { subject: "", normal: "" };

/**
 * Whether a glob pattern matches a subject: `path` (a path pattern; the subject normalised first),
 * `text` (`*` matches anything) or `one-command` (`*` stops at shell operators). `ignoreCase`
 * folds both (deny and ask rules on paths: `.ENV` is `.env` on a case-insensitive disk). A
 * pattern that does not compile matches nothing.
 */
export function matchGlob(pattern: string, subject: string, { kind, ignoreCase = false }: { kind: "path" | "text" | "one-command"; ignoreCase?: boolean }): boolean {
  const mode: MatchMode = kind === "path" ? "path" : kind === "one-command" ? "one-command" : "anything";
  const glob = compiledOf(ignoreCase ? pattern.toLowerCase() : pattern, mode);
  const normal = mode === "path" ? normalisePath(subject) : subject;
  return glob.test(ignoreCase ? normal.toLowerCase() : normal);
}

const compiledSets = new Map<string, CompiledGlobSet>();
const MAX_COMPILED_SETS = 256;

/**
 * Which of several patterns (a call's rules, in their order) match a subject, by index: as
 * `matchGlob` for each, in one pass over the subject for all of them (what keeps a call within a
 * few milliseconds at MAX_SESSION_RULE_STATES: scripts/bench-rules.ts).
 */
export function matchingGlobs(patterns: readonly string[], subject: string, { kind, ignoreCase = false }: { kind: "path" | "text" | "one-command"; ignoreCase?: boolean }): number[] {
  const mode: MatchMode = kind === "path" ? "path" : kind === "one-command" ? "one-command" : "anything";
  const key = `${mode}\u0000${ignoreCase ? 1 : 0}\u0000${patterns.join("\u0000")}`;
  let set = compiledSets.get(key);
  if (set) {
    // Most recently used last: the oldest goes first when the cache is full.
    compiledSets.delete(key);
  } else {
    set = compileGlobSet(ignoreCase ? patterns.map((p) => p.toLowerCase()) : patterns, mode);
    if (compiledSets.size >= MAX_COMPILED_SETS) compiledSets.delete(compiledSets.keys().next().value!);
  }
  compiledSets.set(key, set);
  const normal = mode === "path" ? normalisePath(subject) : subject;
  return set.matching(ignoreCase ? normal.toLowerCase() : normal);
}
