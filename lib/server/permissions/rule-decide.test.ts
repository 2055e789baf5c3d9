import { describe, expect, it } from "vitest";
import type { PermissionDecision, SubjectKind } from "../../protocol/permissions";
import { checkCommandAllow, decide, matches } from "./rule-decide";

const shell = (subject: string, cwd: string | null = ".") => ({ tool: "shell", subject, subjectKind: "command" as const, cwd });
const file = (subject: string, tool = "write_file") => ({ tool, subject, subjectKind: "path" as const, cwd: null });
const rule = (tool: string, pattern: string, decision: PermissionDecision = "deny", cwd: string | null = null) => ({ tool, pattern, decision, cwd });
const hit = (pattern: string, subject: string, subjectKind: SubjectKind, decision?: PermissionDecision) => matches({ tool: "t", pattern, decision }, { tool: "t", subject, subjectKind, cwd: "." });

describe("whether a rule matches a call", () => {
  it("matches only the rule's own tool", () => {
    expect(matches({ tool: "shell", pattern: "*" }, file("a"))).toBe(false);
    expect(matches({ tool: "read_file", pattern: "**" }, file("a", "write_file"))).toBe(false);
  });

  it("lets * alone match every call of its tool, but a command allow rule's * only what a wide rule spans", () => {
    for (const kind of ["path", "text"] as const) {
      expect(hit("*", "", kind)).toBe(true);
      expect(hit("*", "a/b/c; d", kind, "allow")).toBe(true);
    }
    expect(hit("*", "ls; rm -rf ~", "command", "deny")).toBe(true);
    expect(hit("*", "ls -la", "command", "allow")).toBe(true);
    expect(hit("*", "ls; rm -rf ~", "command", "allow")).toBe(false);
  });

  it("matches deny and ask path rules ignoring case, allow path rules not", () => {
    expect(hit("**/.env*", ".ENV", "path", "deny")).toBe(true);
    expect(hit("**/.env*", "config/.Env.local", "path", "ask")).toBe(true);
    expect(hit("**/.git/**", ".GIT/hooks/pre-commit", "path", "deny")).toBe(true);
    expect(hit("docs/**", "DOCS/a.md", "path", "allow")).toBe(false);
    expect(hit("docs/**", "docs/a.md", "path", "allow")).toBe(true);
  });

  it("matches deny and ask command rules as text: * matches anything, operators included", () => {
    expect(hit("rm -rf*", "rm -rf /", "command", "deny")).toBe(true);
    expect(hit("ls*", "ls; rm -rf ~", "command", "ask")).toBe(true);
    expect(hit("git * --force", "git push origin main --force", "command", "deny")).toBe(true);
    expect(hit("rm -rf*", "RM -RF /", "command", "deny")).toBe(false);
  });

  it("matches deny and ask command rules however the command is spelled: the attacker's probe (issue 50)", () => {
    const rules = [rule("shell", "rm -rf*", "deny"), rule("shell", "npm test", "allow")];
    for (const spelling of ["rm  -rf /", "rm -r -f /", "r''m -rf /", "/bin/rm -rf /", "command rm -rf /", "npm test; rm -rf /", "npm test && env rm -fr ~"]) {
      expect([spelling, decide(rules, shell(spelling), true).decision]).toEqual([spelling, "deny"]);
      expect(matches(rules[0]!, shell(spelling))).toBe(true);
    }
    expect(decide(rules, shell("rm -r build"), true).decision).toBe("ask");
    expect(decide(rules, shell("npm test"), true).decision).toBe("allow");
    // A pattern with a `*` inside is matched as text against each simple command too.
    expect(decide([rule("shell", "git push*--force*", "deny")], shell("true; git  push origin --force"), true).decision).toBe("deny");
  });

  it("matches a command allow rule by words: exact, or words then any further arguments", () => {
    expect(hit("npm test", "npm test", "command", "allow")).toBe(true);
    expect(hit("npm test", "npm test --watch", "command", "allow")).toBe(false);
    expect(hit("npm test*", "npm test --watch", "command", "allow")).toBe(true);
    expect(hit("npm test*", "npm testing-anything", "command", "allow")).toBe(false);
    expect(hit("ls*", "lsof", "command", "allow")).toBe(false);
    // A rule without a decision is read as an allow rule (the narrow reading).
    expect(hit("ls*", "ls; rm -rf ~", "command")).toBe(false);
  });

  it("matches a rule with a working folder only in exactly that folder, and one without in every folder", () => {
    expect(matches(rule("shell", "npm test", "allow", "."), shell("npm test", "."))).toBe(true);
    expect(matches(rule("shell", "npm test", "allow", "."), shell("npm test", "sub"))).toBe(false);
    expect(matches(rule("shell", "npm test", "allow", "./sub/"), shell("npm test", "sub"))).toBe(true);
    expect(matches(rule("shell", "npm test", "allow", "sub"), shell("npm test", null))).toBe(false);
    expect(matches(rule("shell", "npm test", "allow"), shell("npm test", "deep/down"))).toBe(true);
    expect(matches(rule("shell", "rm -rf*", "deny", "sub"), shell("rm -rf /", "."))).toBe(false);
  });
});

describe("deciding a tool call", () => {
  it("lets deny beat ask and allow, and ask beat allow, in any order", () => {
    const allowAll = rule("shell", "*", "allow");
    const denyRm = rule("shell", "rm*", "deny");
    const askRm = rule("shell", "rm -i*", "ask");
    for (const rules of [
      [allowAll, denyRm, askRm],
      [askRm, denyRm, allowAll],
      [denyRm, allowAll, askRm],
    ]) {
      expect(decide(rules, shell("ls"), true)).toEqual({ decision: "allow", rule: allowAll });
      expect(decide(rules, shell("rm -rf /"), true)).toEqual({ decision: "deny", rule: denyRm });
      expect(decide(rules, shell("rm -i x"), true)).toEqual({ decision: "deny", rule: denyRm });
    }
    expect(decide([allowAll, askRm], shell("rm -i x"), true)).toEqual({ decision: "ask", rule: askRm });
    expect(decide([askRm, allowAll], shell("rm -i x"), true)).toEqual({ decision: "ask", rule: askRm });
  });

  it("names the first matching rule of the strongest decision", () => {
    const first = rule("write_file", ".git/**");
    const second = rule("write_file", "**/.git/**");
    expect(decide([rule("write_file", "**", "allow"), first, second], file(".git/config"), true)).toEqual({ decision: "deny", rule: first });
  });

  it("asks for a dangerous tool and allows a safe one when no rule matches", () => {
    expect(decide([], shell("ls"), true)).toEqual({ decision: "ask", rule: null });
    expect(decide([], file("a.md", "read_file"), false)).toEqual({ decision: "allow", rule: null });
    expect(decide([rule("shell", "npm*", "allow")], shell("make"), true)).toEqual({ decision: "ask", rule: null });
    expect(decide([rule("read_file", "*", "deny")], shell("ls"), true).decision).toBe("ask");
  });

  it("denies a safe tool when a rule says so, and allows a dangerous one", () => {
    expect(decide([rule("read_file", "**/.env*", "deny")], file("config/.env.local", "read_file"), false).decision).toBe("deny");
    expect(decide([rule("write_file", "docs/**", "allow")], file("docs/a/b.md"), true).decision).toBe("allow");
    expect(decide([rule("write_file", "docs/**", "allow")], file("src/a.ts"), true).decision).toBe("ask");
  });
});

describe("the time a decision takes", () => {
  it("reads a long command's words once for all the wide allow rules of a session", () => {
    const rules = Array.from({ length: 200 }, (_, i) => rule("shell", `prog${i} sub *`, "allow", "."));
    const long = shell(`prog199 sub ${"a ".repeat(4_990)}`);
    const chained = shell(`x; ${"a".repeat(9_990)}`);
    /** The fastest of five: a decision on each command (one after the other, so that neither is the last one read). */
    const fastest = (some: typeof rules) =>
      Math.min(
        ...[0, 1, 2, 3, 4].map(() => {
          const started = performance.now();
          expect(decide(some, long, true).decision).toBe("allow");
          expect(decide(some, chained, true).decision).toBe("ask");
          return performance.now() - started;
        }),
      );
    fastest(rules);
    // The floor, measured in the same run: the same decisions under one rule, which read each command once either way.
    const floor = fastest(rules.slice(-1));
    // Read once per rule, 200 rules took about 200 times the floor; once per decision, about the floor.
    const ratio = fastest(rules) / Math.max(floor, 0.05);
    expect(ratio, `200 rules took ${ratio.toFixed(1)} times one rule's ${floor.toFixed(2)} ms`).toBeLessThan(20);
  });
});

describe("checking a command allow rule", () => {
  it("refuses a * that is not at the end, only for allow rules of command tools", () => {
    expect(() => checkCommandAllow(rule("shell", "git * status", "allow"), "command")).toThrow(/git \* status.*only at the end/);
    expect(() => checkCommandAllow(rule("shell", "git * status", "deny"), "command")).not.toThrow();
    expect(() => checkCommandAllow(rule("write_file", "docs/*/a.md", "allow"), "path")).not.toThrow();
    expect(() => checkCommandAllow(rule("shell", "npm test *", "allow"), "command")).not.toThrow();
    expect(() => checkCommandAllow(rule("shell", "echo \\* done", "allow"), "command")).not.toThrow();
  });
});
