import { describe, expect, it } from "vitest";
import type { Run } from "../protocol/entities";
import { aQuestion } from "../../tests/helpers/questions";
import { formatElapsed, runLineText, sessionWaitingOn, startedByText, waitingOn } from "./run-line";

const run = (over: Partial<Run>) => ({ status: "running", progress: null, error: null, ...over }) as Run;

describe("run lines", () => {
  it("say what the run is doing, or how it ended", () => {
    expect(runLineText(run({}), { waiting: false, name: "Deploy" })).toBe("Deploy is working…");
    expect(runLineText(run({ progress: "Step 2 of 3" }), { waiting: false, name: "Deploy" })).toBe("Deploy is working · Step 2 of 3");
    expect(runLineText(run({}), { waiting: "you", name: "Deploy" })).toBe("Deploy is waiting for your answer");
    expect(runLineText(run({ status: "failed", error: "boom" }), { waiting: false, name: "Deploy" })).toBe("Deploy failed: boom");
    expect(runLineText(run({ status: "succeeded" }), { waiting: false, name: "Order coffee" })).toBe("Order coffee finished");
  });

  it("a run that waits only for other people's answers says so, not that it waits for yours", () => {
    expect(runLineText(run({}), { waiting: "others", name: "Deploy" })).toBe("Deploy is waiting for an answer");
    expect(runLineText(run({ status: "waiting_input" }), { waiting: "you", name: "Deploy" })).toBe("Deploy is waiting for your answer");
    const carols = aQuestion({ id: "a", runId: "r1", answerers: ["carol"] });
    const anyones = aQuestion({ id: "b", runId: "r2" });
    const runs = waitingOn([carols, anyones, aQuestion({ id: "c", runId: "r1", answerers: ["bob"] })], "bob");
    expect([...runs]).toEqual([
      ["r1", "you"],
      ["r2", "you"],
    ]);
    expect([...waitingOn([carols], "bob")]).toEqual([["r1", "others"]]);
    expect(sessionWaitingOn(waitingOn([carols], "bob"))).toBe("others");
    expect(sessionWaitingOn(waitingOn([carols, anyones], "bob"))).toBe("you");
    expect(sessionWaitingOn(waitingOn([], "bob"))).toBe(false);
  });

  it("formats elapsed time", () => {
    expect([formatElapsed(4), formatElapsed(125), formatElapsed(120), formatElapsed(3_780)]).toEqual(["4 s", "2 min 5 s", "2 min", "1 h 3 min"]);
  });
});

describe("the line that introduces a run started from outside the chat", () => {
  it("says where it came from and with which credential", () => {
    expect(startedByText({ surface: "rest", via: "api_token", tokenName: "ci" }, "Interview")).toBe("Interview was started through the REST API with the API token “ci”");
    expect(startedByText({ surface: "rest", via: "api_token" }, "Interview")).toBe("Interview was started through the REST API with an API token");
    expect(startedByText({ surface: "rest", via: "server_token", clientSays: "cli" }, "Deploy")).toBe("Deploy was started through the REST API (the CLI, as it says) with the server token");
    expect(startedByText({ surface: "rest", via: "cookie" }, "Deploy")).toBe("Deploy was started through the REST API from a signed-in browser");
    expect(startedByText({ surface: "mcp", via: "api_token", tokenName: "laptop", mcpClient: "claude-code" }, "Approval")).toBe("“claude-code” asked through MCP with the API token “laptop”");
    expect(startedByText({ surface: "mcp", via: "server_token" }, "Ask")).toBe("An MCP client asked through MCP with the server token");
  });

  it("names who started it by their display name, when it is known", () => {
    expect(startedByText({ surface: "rest", via: "server_token", clientSays: "cli" }, "Deploy", "Boss")).toBe(
      "Deploy was started by Boss through the REST API (the CLI, as it says) with the server token",
    );
    expect(startedByText({ surface: "mcp", via: "api_token", mcpClient: "claude-code" }, "Approval", "Ann")).toBe("“claude-code” asked for Ann through MCP with an API token");
  });
});
