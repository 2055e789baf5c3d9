import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { compileGlob, compileGlobSet, MAX_PATTERN_STATES, matchWork, type MatchMode } from "./glob-engine";

const SEGMENT_PARTS = ["a", "b", ".", "*", "?", "[ab]", "[!a]", "{a,b}", "{a,ab}"];
const segment = fc.array(fc.constantFrom(...SEGMENT_PARTS), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""));
const pathPattern = fc
  .array(fc.oneof({ weight: 4, arbitrary: segment }, { weight: 1, arbitrary: fc.constant("**") }), { minLength: 1, maxLength: 5 })
  .map((segments) => segments.join("/"))
  // A `.` segment is a folder's own name, which neither side reads as a glob the same way.
  .filter((pattern) => !pattern.split("/").includes("."))
  // `**` inside a segment is `*` here, and picomatch reads it differently next to braces.
  .filter((pattern) => pattern.split("/").every((segment) => segment === "**" || !segment.includes("**")));
const pathSubject = fc.array(fc.constantFrom("a", "b", "ab", "ba", ".a", "aa", "b.a"), { minLength: 1, maxLength: 6 }).map((s) => s.join("/"));

const STAR_CHARS = ["a", "b", " ", ";", "|", "$", "(", "*", "\\*", "&"];
const starPattern = fc.array(fc.constantFrom(...STAR_CHARS), { minLength: 0, maxLength: 10 }).map((parts) => parts.join(""));
const starSubject = fc.array(fc.constantFrom("a", "b", " ", ";", "|", "$", "(", "&", "\n", "*"), { maxLength: 14 }).map((parts) => parts.join(""));

/** The compiled pattern, or null for one refused as too complex (those are checked on their own below). */
function compiledOrNull(pattern: string, mode: MatchMode) {
  try {
    return compileGlob(pattern, mode);
  } catch (err) {
    if (/too complex|alternatives/.test((err as Error).message)) return null;
    throw err;
  }
}

/** What a star pattern means, as a regular expression (small inputs only: it backtracks). */
function starReference(pattern: string, mode: "anything" | "one-command"): RegExp {
  const gap = mode === "anything" ? "[\\s\\S]*" : "(?:[^;&|<>\\n\\r`$]|\\$(?!\\())*";
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\" && i + 1 < pattern.length) source += pattern[++i]!.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
    else if (ch === "*") source += gap;
    else source += ch.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

describe("the glob engine agrees with reference matchers", () => {
  it("path globs: the same answers as picomatch (dot files on) for random patterns and paths", () => {
    fc.assert(
      fc.property(pathPattern, pathSubject, (pattern, subject) => {
        const glob = compiledOrNull(pattern, "path");
        fc.pre(glob !== null);
        // picomatch reads a leading `[!a]` as a literal or a class; `[^a]` is the same class to both.
        const reference = pattern.replaceAll("[!", "[^");
        const pm = (p: string) => picomatch(p, { dot: true })(subject);
        // `x/**` is the folder x itself too (as in picomatch for a literal x, here for any segment).
        let expected = pm(reference);
        for (let folder = reference; folder.endsWith("/**");) {
          folder = folder.slice(0, -3);
          expected ||= pm(folder);
        }
        expect(glob.test(subject)).toBe(expected);
      }),
      { numRuns: 3_000 },
    );
  });

  it.each(["anything", "one-command"] as const)("star patterns (%s): the same answers as a regular expression", (mode) => {
    fc.assert(
      fc.property(starPattern, starSubject, (pattern, subject) => {
        expect(compileGlob(pattern, mode).test(subject)).toBe(starReference(pattern, mode).test(subject));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe("patterns tested together", () => {
  it("match exactly the patterns that match one by one (path, star and literal patterns mixed)", () => {
    const anyPattern = fc.oneof(pathPattern, starPattern, fc.constantFrom("a/b", "a", "ab/ba", "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}"));
    fc.assert(
      fc.property(fc.array(anyPattern, { maxLength: 12 }), pathSubject, fc.constantFrom<MatchMode>("path", "anything", "one-command"), (patterns, subject, mode) => {
        const expected = patterns.flatMap((pattern, i) => (compiledOrNull(pattern, mode)?.test(subject) ? [i] : []));
        expect(compileGlobSet(patterns, mode).matching(subject)).toEqual(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("matching is bounded", () => {
  /** Work for one match, against the bound: a constant per subject character and 32 states. */
  function work(pattern: string, mode: MatchMode, subject: string): { steps: number; bound: number; matched: boolean } {
    const glob = compiledOrNull(pattern, mode);
    if (!glob) return { steps: 0, bound: 0, matched: false };
    const before = matchWork.steps;
    const matched = glob.test(subject);
    const steps = matchWork.steps - before;
    const words = Math.ceil(glob.states / 32);
    return { steps, bound: (subject.length + 1) * words * 6 + 3 * subject.length + glob.states, matched };
  }

  const pathological = fc.oneof(
    fc.integer({ min: 1, max: 90 }).map((n) => `${"*a".repeat(n)}*b`),
    fc.integer({ min: 1, max: 60 }).map((n) => `${"**/".repeat(n)}*a*b`),
    fc.integer({ min: 1, max: 40 }).map((n) => `**/${"a*".repeat(n)}/**/b`),
    fc.integer({ min: 1, max: 3 }).map((n) => `${"{a,b}/".repeat(n)}**/${"*a".repeat(8)}`),
    fc.integer({ min: 1, max: 60 }).map((n) => `${"?".repeat(n)}*[ab]*`),
  );
  const longSubject = fc.oneof(
    fc.integer({ min: 100, max: 10_000 }).map((n) => "a".repeat(n)),
    fc.integer({ min: 50, max: 2_500 }).map((n) => "a/".repeat(n)),
    fc.integer({ min: 50, max: 2_500 }).map((n) => "ab/a".repeat(n)),
  );

  it("within a linear bound of the subject's length times the pattern's words, for pathological patterns", () => {
    fc.assert(
      fc.property(pathological, longSubject, fc.constantFrom<MatchMode>("path", "anything", "one-command"), (pattern, subject, mode) => {
        const { steps, bound } = work(pattern, mode, subject);
        expect(steps).toBeLessThanOrEqual(bound);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a pattern whose automaton would exceed its states, and braces beyond 64 alternatives", () => {
    expect(() => compileGlob("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}", "path")).toThrow(/more than 64 alternatives/);
    expect(() => compileGlob(`{a,b}/{c,d}/${"x*".repeat(60)}`, "path")).toThrow(new RegExp(`at most ${MAX_PATTERN_STATES}`));
    expect(compileGlob(`${"*a".repeat(90)}*b`, "anything").states).toBeLessThanOrEqual(MAX_PATTERN_STATES);
  });

  it("collapses **/**/ to **/ (a chain of empty moves stays short)", () => {
    const long = compileGlob(`${"**/".repeat(60)}x`, "path");
    expect(long.states).toBeLessThan(10);
    expect(long.test("a/b/x")).toBe(true);
    expect(long.test("x")).toBe(true);
    expect(long.test("a/b/y")).toBe(false);
  });
});
