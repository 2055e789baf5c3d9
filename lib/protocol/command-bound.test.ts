import { describe, expect, it } from "vitest";
import { approvalBoundText, boundByRules, chainText } from "./command-bound";

describe("what a command's card says it can reach", () => {
  it("the bound, then the rules that let the agent change the code it runs", () => {
    expect(approvalBoundText({ preview: { type: "command", command: "ls", bound: "sandboxed" } })).toBe("Runs sandboxed: can change only the workspace, no network");
    expect(approvalBoundText({ preview: { type: "command", command: "npm test", bound: "sandboxed", chain: ["write_file src/**"] } })).toBe(
      "Runs sandboxed: can change only the workspace, no network\nIt runs the workspace's code, which this rule lets the agent change without asking: write_file src/**.",
    );
    expect(chainText(["write_file src/**", "edit_file test/** in web"])).toBe(
      "It runs the workspace's code, which these rules let the agent change without asking: write_file src/**; edit_file test/** in web.",
    );
    expect(chainText([])).toBeNull();
    expect(approvalBoundText({ preview: { type: "text", text: "x" } })).toBeNull();
    expect(approvalBoundText(null)).toBeNull();
  });

  it("allow rules cover only what the system bounds, or what its operator opted out of on purpose", () => {
    expect([boundByRules("sandboxed"), boundByRules("opted-out"), boundByRules("network"), boundByRules("unsandboxed")]).toEqual([true, true, false, false]);
  });
});
