import { describe, expect, it } from "vitest";
import type { PermissionRule, SessionRules } from "../protocol/permissions";
import { grantWords, ruleWords, rulesPath, sourceLabel, withoutRule } from "./permission-rules";

const rule = (id: string, source: PermissionRule["source"]): PermissionRule => ({
  id,
  sessionId: source === "project" ? null : "s1",
  tool: "shell",
  pattern: "ls*",
  decision: "allow",
  source,
  createdAt: source === "project" || source === "builtin" ? null : "2026-01-01T00:00:00.000Z",
  unknownTool: false,
  subjectKind: "command",
});

describe("the permissions panel's wording", () => {
  it("says where a rule came from", () => {
    expect(sourceLabel(rule("builtin:0", "builtin"))).toBe("built into Parley");
    expect(sourceLabel(rule("project:0", "project"))).toBe("project default");
    expect(sourceLabel(rule("a", "always"))).toBe("from Allow always");
    expect(sourceLabel(rule("b", "manual"))).toBe("added here");
  });

  it("says who made a rule, how long it lasts and how often it was used", () => {
    const time = (iso: string) => iso.slice(11, 16);
    const now = Date.parse("2026-12-07T18:00:00Z");
    expect(grantWords({ ...rule("a", "always"), createdBy: "bob", expiresAt: "2026-12-07T18:45:00Z", uses: 3 }, { now, time })).toBe("by bob · until 18:45 · used 3 times");
    expect(grantWords({ ...rule("a", "always"), createdBy: null, expiresAt: null, uses: 1 }, { now, time })).toBe("for good · used once");
    expect(grantWords({ ...rule("a", "always"), expiresAt: "2026-12-07T18:00:00Z", uses: 0 }, { now, time })).toBe("ended · not used yet");
    expect(grantWords(rule("b", "manual"), { now, time })).toBe("for good");
    // The one name each person is shown by.
    expect(grantWords({ ...rule("a", "always"), createdBy: "local", expiresAt: null }, { now, time })).toBe("by Administrator · for good");
    expect(grantWords({ ...rule("a", "always"), createdBy: "bob", expiresAt: null }, { now, time, nameOf: (id) => (id === "bob" ? "Robert" : id) })).toBe("by Robert · for good");
  });

  it("drops a removed rule from the session's, never from the project's", () => {
    const rules: SessionRules = { builtin: [], project: [rule("project:0", "project")], session: [rule("a", "always"), rule("b", "manual")] };
    expect(withoutRule(rules, "a")).toEqual({ builtin: [], project: rules.project, session: [rules.session[1]] });
    expect(withoutRule(rules, "project:0")).toEqual(rules);
    expect(withoutRule(null, "a")).toBeNull();
  });

  it("encodes ids as path segments", () => {
    expect(rulesPath("s 1")).toBe("/api/sessions/s%201/rules");
    expect(rulesPath("s1", "a/b")).toBe("/api/sessions/s1/rules/a%2Fb");
  });
});

describe("a rule in words", () => {
  const words = (over: Partial<PermissionRule>) => ruleWords({ ...rule("a", "always"), ...over });

  it.each([
    [{ pattern: "npm test *", cwd: "." }, "shell: `npm test` with any further arguments, in the workspace's top folder"],
    [{ pattern: "npm test", cwd: "packages/app" }, "shell: `npm test` exactly, in `packages/app`"],
    [{ pattern: "ls*" }, "shell: `ls` with any further arguments, in any folder"],
    [{ pattern: "npm test\\; echo done", cwd: "." }, "shell: `npm test; echo done` exactly, in the workspace's top folder"],
    [{ pattern: "*" }, "shell: any plain command, in any folder"],
    [{ pattern: "rm -rf*", decision: "deny" }, "shell: any command starting with `rm -rf`, in any folder"],
    [{ pattern: "git push*--force*", decision: "deny" }, "shell: any command matching `git push*--force*`, in any folder"],
    [{ pattern: "git * status" }, "shell: `git * status`, which matches nothing (an allow rule is an exact command or words then `*`), in any folder"],
    [{ tool: "write_file", subjectKind: "path", pattern: "docs/**" }, "write_file: any file under `docs/`"],
    [{ tool: "write_file", subjectKind: "path", pattern: "README.md" }, "write_file: `README.md` exactly"],
    [{ tool: "read_file", subjectKind: "path", pattern: "**/.env*", decision: "deny" }, "read_file: any file whose name starts with `.env`, anywhere (any case)"],
    [{ tool: "write_file", subjectKind: "path", pattern: "**/.git/**", decision: "deny" }, "write_file: any file under a `.git/` folder, anywhere (any case)"],
    [{ tool: "write_file", subjectKind: "path", pattern: "src/*.{ts,tsx}", decision: "ask" }, "write_file: files matching `src/*.{ts,tsx}` (any case)"],
    [{ tool: "read_file", subjectKind: "path", pattern: "**", decision: "allow" }, "read_file: any file"],
    [{ tool: "browser", subjectKind: null, pattern: "https://*" }, "browser: `https://*`"],
  ] as const)("%j → %s", (over, text) => {
    expect(words(over as Partial<PermissionRule>)).toBe(text);
  });
});
