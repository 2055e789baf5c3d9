import { describe, expect, it } from "vitest";
import { HELP_TEXT, pickDemoFunction } from "./chat";
import { agentFunctions, findAgentFunction } from "./index";

describe("the demo chat agent", () => {
  it.each([
    ["please deploy it", "deploy"],
    ["I'd like a coffee", "order-coffee"],
    ["pizza time", "pick-toppings"],
    ["rename the project", "rename-project"],
    ["archive my inbox", "archive-emails"],
    ["lunch?", "quick-poll"],
    ["start the countdown", "countdown"],
    ["a shirt", "two-questions"],
    ["set a budget", "set-budget"],
    ["plan my evening", "plan-evening"],
    ["write a report", "write-report"],
    ["run the tests", "run-tests"],
    ["open a shell", "run-tests"],
    ["write the changelog", "write-changelog"],
    ["ask for two approvals", "update-docs"],
  ])("routes %j to %s", (text, name) => {
    expect(pickDemoFunction(text)?.name).toBe(name);
  });

  it("answers anything else with help that names every demo", () => {
    expect(pickDemoFunction("hello there")).toBeNull();
    for (const name of ["deploy", "coffee", "pizza", "rename", "archive", "lunch", "launch", "shirt", "budget", "evening", "report", "shell", "write", "approvals"]) {
      expect(HELP_TEXT).toContain(`"${name}"`);
    }
  });

  it("registers every function under a unique name with a description", () => {
    const names = agentFunctions.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const fn of agentFunctions) expect(fn.description.length).toBeGreaterThan(10);
    expect(findAgentFunction("chat")).toBeDefined();
  });
});
