import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import type { PermissionDecision, SubjectKind } from "../../protocol/permissions";
import { escapePattern } from "../../permissions/pattern-text";
import { checkPattern, matchGlob, normalisePath } from "./rule-match";

// The glob engine alone; rules (precedence, word-based command allow rules, cwd) are rule-decide.test.ts's.
const hit = (pattern: string, subject: string, subjectKind: SubjectKind, decision?: PermissionDecision) =>
  matchGlob(pattern, subject, { kind: subjectKind === "path" ? "path" : subjectKind === "command" && decision === "allow" ? "one-command" : "text" });

describe("matching a rule's pattern", () => {
  it("matches path patterns as globs: * within a folder, ** across, dot files included", () => {
    expect(hit("docs/*", "docs/a.md", "path")).toBe(true);
    expect(hit("docs/*", "docs/guide/a.md", "path")).toBe(false);
    expect(hit("docs/**", "docs/guide/a.md", "path")).toBe(true);
    expect(hit("docs/**", "docs/.hidden/x", "path")).toBe(true);
    expect(hit("docs/**", "src/a.ts", "path")).toBe(false);
    expect(hit("**/*.md", "a/b/c.md", "path")).toBe(true);
    expect(hit("**/.env*", ".env", "path")).toBe(true);
    expect(hit("src/*.{ts,tsx}", "src/app.tsx", "path")).toBe(true);
    expect(hit("src/*.{ts,tsx}", "src/app.js", "path")).toBe(false);
    expect(hit("[!.]*", "a.md", "path")).toBe(true);
    expect(hit("[!.]*", ".env", "path")).toBe(false);
    expect(hit("docs/[draft]/**", "docs/d/a.md", "path")).toBe(true);
    expect(hit("docs/\\[draft\\]/**", "docs/[draft]/a.md", "path")).toBe(true);
  });

  it("agrees with picomatch on path globs (dot files on)", () => {
    const patterns = [
      "docs/**",
      "docs/*",
      "**",
      "**/*.md",
      "a/**/b",
      "a/**/b/*.ts",
      "src/*.{ts,tsx}",
      "src/{lib,app}/**",
      "?.md",
      "[a-c]*.md",
      "[^a]*",
      "*.test.ts",
      "**/.env*",
      ".git/**",
      "a/*/c",
      "**/node_modules/**",
    ];
    const paths = [
      "docs",
      "docs/a.md",
      "docs/x/y.md",
      "a/b",
      "a/x/y/b",
      "a/b/c.ts",
      "a/x/b/c.ts",
      "src/a.ts",
      "src/a.tsx",
      "src/lib/x/y.js",
      "b.md",
      "ab.md",
      "d.md",
      "x.test.ts",
      ".env",
      "cfg/.env.local",
      ".git/config",
      "a/b/c",
      "a/b/b/c",
      "p/node_modules/q/r.js",
      "README.md",
    ];
    for (const pattern of patterns) {
      const expected = picomatch(pattern, { dot: true });
      for (const p of paths) expect([pattern, p, hit(pattern, p, "path")]).toEqual([pattern, p, expected(p)]);
    }
  });

  it("matches in time proportional to the pattern and subject, never backtracking", () => {
    const pattern = `${"*a".repeat(90)}*b`;
    /** Matches against subjects of `n` characters: the fastest of five, in ms. */
    const fastest = (n: number) =>
      Math.min(
        ...[0, 1, 2, 3, 4].map(() => {
          const started = performance.now();
          for (const kind of ["command", "text", "path"] as const) {
            expect(hit(pattern, "a".repeat(n), kind)).toBe(false);
            expect(hit(pattern, "a".repeat(n), kind, "allow")).toBe(false);
          }
          expect(hit(`{a,b}/{c,d}/{e,f}/${"**/a".repeat(10)}/*b`, `a/c/e/${"a/".repeat(n / 4)}`, "path")).toBe(false);
          return performance.now() - started;
        }),
      );
    // Linear: ten times the subject takes about ten times as long as the floor of a tenth of it,
    // measured in the same run after a first pass (backtracking takes a power of it, when it ends at all).
    fastest(200_000);
    const floor = fastest(20_000);
    const ratio = fastest(200_000) / Math.max(floor, 0.05);
    expect(ratio, `ten times the subject took ${ratio.toFixed(1)} times the ${floor.toFixed(2)} ms of a tenth`).toBeLessThan(40);
  });

  it("normalises a path first: ./ is dropped and .. cannot climb out of a matching folder", () => {
    expect(normalisePath("./docs//a.md")).toBe("docs/a.md");
    expect(hit("docs/**", "./docs/a.md", "path")).toBe(true);
    expect(hit("docs/**", "docs/../.env", "path")).toBe(false);
    expect(hit(".env", "docs/../.env", "path")).toBe(true);
  });

  it("matches command patterns with * for anything, / and .. included, other characters literal", () => {
    expect(hit("npm test*", "npm test", "command")).toBe(true);
    expect(hit("npm test*", "npm test -- src/../x/y.test.ts", "command")).toBe(true);
    expect(hit("npm test*", "npm run build", "command")).toBe(false);
    expect(hit("npm test*", "NPM TEST", "command")).toBe(false);
    expect(hit("git * --force", "git push origin main --force", "command")).toBe(true);
    expect(hit("rm -rf*", "rm -rf /", "command")).toBe(true);
    expect(hit("a?c", "abc", "command")).toBe(false);
    expect(hit("a?c", "a?c", "command")).toBe(true);
    expect(hit("echo \\(*", "echo (x) y", "command")).toBe(true);
    expect(hit("cat *.log", "cat /var/log/a.log", "text")).toBe(true);
  });

  it("keeps an allow rule's * within one command; deny and ask rules' * match across operators", () => {
    for (const chained of ["ls; rm -rf ~", "ls && rm -rf ~", "ls | sh", "ls\nrm -rf ~", "ls `rm -rf ~`", "ls $(rm -rf ~)", "ls > /etc/passwd"]) {
      expect(hit("ls*", chained, "command", "allow")).toBe(false);
      expect(hit("ls*", chained, "command", "deny")).toBe(true);
      expect(hit("ls*", chained, "command", "ask")).toBe(true);
    }
    expect(hit("ls*", "ls -la /tmp", "command", "allow")).toBe(true);
    // An operator written in the pattern is literal: it was allowed as written.
    expect(hit("make && make test*", "make && make test -v", "command", "allow")).toBe(true);
    // Text is not a command.
    expect(hit("say*", "say a; b", "text", "allow")).toBe(true);
  });

  it("escapes text into a pattern that matches exactly it", () => {
    const text = "echo (a|b) [x] {y} !z @w +v ? * \\";
    expect(() => checkPattern(escapePattern(text))).not.toThrow();
    expect(hit(escapePattern(text), text, "command")).toBe(true);
    expect(hit(`${escapePattern("echo [")}*`, "echo [ more", "command")).toBe(true);
    expect(hit(escapePattern("docs/[draft]") + "/**", "docs/[draft]/a.md", "path")).toBe(true);
  });
});

describe("checking a pattern", () => {
  it("takes globs and commands with balanced or escaped brackets", () => {
    for (const p of ["*", "**", "docs/**", "npm test*", "src/*.{ts,tsx}", "[ab]*", "echo \\[*", "a\\)"]) expect(() => checkPattern(p)).not.toThrow();
  });

  it("refuses braces that expand to too many alternatives", () => {
    expect(() => checkPattern("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}")).toThrow(/more than 64 alternatives/);
    expect(() => checkPattern("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}")).toThrow(/too complex: it needs 448 matching states, at most 256/);
    expect(() => checkPattern("{a,b}{c,d}{e,f}{g,h}{i,j}")).not.toThrow();
  });

  it("refuses an empty pattern and unbalanced brackets with a 400 naming the pattern", () => {
    for (const p of ["", "   ", "[abc", "a]", "(x", "{a,b", "docs/[*"]) {
      let error: unknown;
      try {
        checkPattern(p);
      } catch (err) {
        error = err;
      }
      expect(error).toMatchObject({ code: "bad_request", status: 400 });
      expect((error as Error).message).toContain(JSON.stringify(p));
    }
  });

  it("clips a long pattern in its message", () => {
    expect(() => checkPattern(`[${"x".repeat(5_000)}`)).toThrow(/^Invalid pattern "\[x+…"/);
    try {
      checkPattern(`[${"x".repeat(5_000)}`);
    } catch (err) {
      expect((err as Error).message.length).toBeLessThan(400);
    }
  });
});
