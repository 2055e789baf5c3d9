import { describe, expect, it } from "vitest";
import type { PermissionDecision } from "../../protocol/permissions";
import { wideCovered } from "./wide-covered";

const option = (pattern: string, cwd: string | null = ".") => ({ pattern, cwd, label: pattern });
const rule = (pattern: string, decision: PermissionDecision = "deny", cwd: string | null = null) => ({ tool: "t", pattern, decision, cwd });

describe("a wider option the rules would stop anyway", () => {
  it.each([
    ["git push *", "git push*", true],
    ["git push *", "git *", true],
    ["git push *", "git push *", true],
    ["git push *", "*", true],
    ["sudo *", "sudo *", true],
    ["git push *", "git push --force*", false],
    ["git push *", "git pushx*", false],
    ["rm *", "rm -rf*", false],
    ["npm test *", "npm*--script-shell*", false],
  ])("%j with a deny rule %j: %s", (wide, deny, covered) => {
    expect(wideCovered(option(wide), "command", rule(deny))).toBe(covered);
  });

  it("counts ask rules too, not allow rules, and a rule of another folder not at all", () => {
    expect(wideCovered(option("git push *"), "command", rule("git push*", "ask"))).toBe(true);
    expect(wideCovered(option("git push *"), "command", rule("git push*", "allow"))).toBe(false);
    expect(wideCovered(option("git push *", "sub"), "command", rule("git push*", "deny", "."))).toBe(false);
    expect(wideCovered(option("git push *", "sub"), "command", rule("git push*", "deny", "./sub"))).toBe(true);
  });

  it.each([
    ["docs/**", "docs/**", true],
    ["docs/**", "**", true],
    ["docs/guide/**", "docs/**", true],
    ["docs/**", "docs/guide/**", false],
    ["docs/**", "doc/**", false],
    ["docsy/**", "docs/**", false],
    ["docs/**", "**/*.md", false],
  ])("a path option %j with a deny rule %j: %s", (wide, deny, covered) => {
    expect(wideCovered(option(wide, null), "path", rule(deny))).toBe(covered);
  });
});
