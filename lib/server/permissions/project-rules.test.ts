import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadProjectRules } from "./project-rules";

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-rules-"));
  file = path.join(dir, "parley.permissions.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (content: unknown) => writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));

describe("the project's permission rules file", () => {
  it("gives no rules when there is no file", () => {
    expect(loadProjectRules(path.join(dir, "missing.json"))).toEqual([]);
  });

  it("reads the rules in their order, patterns trimmed", () => {
    write({
      rules: [
        { tool: "read_file", pattern: "**", decision: "allow" },
        { tool: "shell", pattern: " rm -rf* ", decision: "deny" },
        { tool: "shell", pattern: "npm test*", decision: "ask" },
      ],
    });
    expect(loadProjectRules(file)).toEqual([
      { tool: "read_file", pattern: "**", decision: "allow" },
      { tool: "shell", pattern: "rm -rf*", decision: "deny" },
      { tool: "shell", pattern: "npm test*", decision: "ask" },
    ]);
  });

  it("takes an empty list", () => {
    write({ rules: [] });
    expect(loadProjectRules(file)).toEqual([]);
  });

  it("refuses a file that is not JSON, naming the file", () => {
    write("{ rules: [");
    expect(() => loadProjectRules(file)).toThrow(new RegExp(`Invalid permission rules file ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON`));
  });

  it("refuses a file of another shape, saying what is wrong", () => {
    write({ rule: [] });
    expect(() => loadProjectRules(file)).toThrow(/parley\.permissions\.json: .*rules/);
    write({ rules: [{ tool: "shell", pattern: "ls*", decision: "maybe" }] });
    expect(() => loadProjectRules(file)).toThrow(/rules\.0\.decision/);
    write({ rules: [{ tool: "shell", pattern: "ls*", decision: "allow", why: "x" }] });
    expect(() => loadProjectRules(file)).toThrow(/Unrecognized key: "why"/);
    write({ rules: [{ tool: "", pattern: "ls*", decision: "allow" }] });
    expect(() => loadProjectRules(file)).toThrow(/rules\.0\.tool/);
  });

  it("refuses an invalid pattern, naming the rule and the pattern", () => {
    write({
      rules: [
        { tool: "read_file", pattern: "**", decision: "allow" },
        { tool: "write_file", pattern: "docs/[draft/**", decision: "deny" },
      ],
    });
    expect(() => loadProjectRules(file)).toThrow(/parley\.permissions\.json: rules\.1 \(write_file\): Invalid pattern "docs\/\[draft\/\*\*": Missing closing: "\]"/);
    write({ rules: [{ tool: "shell", pattern: "  ", decision: "deny" }] });
    expect(() => loadProjectRules(file)).toThrow(/rules\.0\.pattern: A pattern may not be empty/);
  });

  it("the committed example is valid", () => {
    const rules = loadProjectRules(path.resolve(import.meta.dirname, "../../../parley.permissions.json"));
    expect(rules.length).toBeGreaterThan(0);
    expect(rules).toContainEqual({ tool: "shell", pattern: "rm -rf*", decision: "deny" });
  });
});
