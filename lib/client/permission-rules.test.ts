import { describe, expect, it } from "vitest";
import type { PermissionRule, SessionRules } from "../protocol/permissions";
import { rulesPath, sourceLabel, withoutRule } from "./permission-rules";

const rule = (id: string, source: PermissionRule["source"]): PermissionRule => ({
  id,
  sessionId: source === "project" ? null : "s1",
  tool: "shell",
  pattern: "ls*",
  decision: "allow",
  source,
  createdAt: source === "project" ? null : "2026-01-01T00:00:00.000Z",
  unknownTool: false,
});

describe("the permissions panel's wording", () => {
  it("says where a rule came from", () => {
    expect(sourceLabel(rule("project:0", "project"))).toBe("project default");
    expect(sourceLabel(rule("a", "always"))).toBe("from Allow always");
    expect(sourceLabel(rule("b", "manual"))).toBe("added here");
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
