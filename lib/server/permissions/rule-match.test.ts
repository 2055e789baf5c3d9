import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import type { PermissionDecision, SubjectKind } from "../../protocol/permissions";
import { checkPattern, decide, escapePattern, matches, normalisePath } from "./rule-match";

const shell = (subject: string) => ({ tool: "shell", subject, subjectKind: "command" as const });
const file = (subject: string, tool = "write_file") => ({ tool, subject, subjectKind: "path" as const });
const rule = (tool: string, pattern: string, decision: PermissionDecision = "deny") => ({ tool, pattern, decision });
const hit = (pattern: string, subject: string, subjectKind: SubjectKind, decision?: PermissionDecision) =>
  matches({ tool: "t", pattern, decision }, { tool: "t", subject, subjectKind });

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
    const patterns = ["docs/**", "docs/*", "**", "**/*.md", "a/**/b", "a/**/b/*.ts", "src/*.{ts,tsx}", "src/{lib,app}/**", "?.md", "[a-c]*.md", "[^a]*", "*.test.ts", "**/.env*", ".git/**", "a/*/c", "**/node_modules/**"];
    const paths = ["docs", "docs/a.md", "docs/x/y.md", "a/b", "a/x/y/b", "a/b/c.ts", "a/x/b/c.ts", "src/a.ts", "src/a.tsx", "src/lib/x/y.js", "b.md", "ab.md", "d.md", "x.test.ts", ".env", "cfg/.env.local", ".git/config", "a/b/c", "a/b/b/c", "p/node_modules/q/r.js", "README.md"];
    for (const pattern of patterns) {
      const expected = picomatch(pattern, { dot: true });
      for (const p of paths) expect([pattern, p, hit(pattern, p, "path")]).toEqual([pattern, p, expected(p)]);
    }
  });

  it("matches in time proportional to the pattern and subject, never backtracking", () => {
    const started = Date.now();
    const pattern = `${"*a".repeat(90)}*b`;
    for (const kind of ["command", "text", "path"] as const) {
      expect(hit(pattern, "a".repeat(20_000), kind)).toBe(false);
      expect(hit(pattern, "a".repeat(20_000), kind, "allow")).toBe(false);
    }
    expect(hit(`{a,b}/{c,d}/{e,f}/${"**/a".repeat(10)}/*b`, `a/c/e/${"a/".repeat(5_000)}`, "path")).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
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

  it("lets * alone match every call of its tool, whatever the subject", () => {
    for (const kind of ["path", "command", "text"] as const) {
      expect(hit("*", "", kind)).toBe(true);
      expect(hit("*", "a/b/c; d", kind, "allow")).toBe(true);
    }
  });

  it("matches only the rule's own tool", () => {
    expect(matches({ tool: "shell", pattern: "*" }, file("a"))).toBe(false);
    expect(matches({ tool: "read_file", pattern: "**" }, file("a", "write_file"))).toBe(false);
  });

  it("escapes text into a pattern that matches exactly it", () => {
    const text = "echo (a|b) [x] {y} !z @w +v ? * \\";
    expect(() => checkPattern(escapePattern(text))).not.toThrow();
    expect(hit(escapePattern(text), text, "command")).toBe(true);
    expect(hit(`${escapePattern("echo [")}*`, "echo [ more", "command")).toBe(true);
    expect(hit(escapePattern("docs/[draft]") + "/**", "docs/[draft]/a.md", "path")).toBe(true);
  });
});

describe("deciding a tool call", () => {
  it("lets the last matching rule win", () => {
    const rules = [rule("shell", "*", "allow"), rule("shell", "rm*", "deny"), rule("shell", "rm -i*", "allow")];
    expect(decide(rules, shell("ls"), true)).toEqual({ decision: "allow", rule: rules[0] });
    expect(decide(rules, shell("rm -rf /"), true)).toEqual({ decision: "deny", rule: rules[1] });
    expect(decide(rules, shell("rm -i x"), true)).toEqual({ decision: "allow", rule: rules[2] });
    expect(decide([...rules, rule("shell", "*", "ask")], shell("rm -i x"), true).decision).toBe("ask");
  });

  it("asks for a dangerous tool and allows a safe one when no rule matches", () => {
    expect(decide([], shell("ls"), true)).toEqual({ decision: "ask", rule: null });
    expect(decide([], file("a.md", "read_file"), false)).toEqual({ decision: "allow", rule: null });
    expect(decide([rule("shell", "npm*", "allow")], shell("make"), true)).toEqual({ decision: "ask", rule: null });
  });

  it("denies a safe tool when a rule says so, and allows a dangerous one", () => {
    expect(decide([rule("read_file", "**/.env*", "deny")], file("config/.env.local", "read_file"), false).decision).toBe("deny");
    expect(decide([rule("write_file", "docs/**", "allow")], file("docs/a/b.md"), true).decision).toBe("allow");
    expect(decide([rule("write_file", "docs/**", "allow")], file("src/a.ts"), true).decision).toBe("ask");
  });

  it("ignores rules of other tools", () => {
    expect(decide([rule("read_file", "*", "deny")], shell("ls"), true).decision).toBe("ask");
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
