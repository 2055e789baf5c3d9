import { describe, expect, it } from "vitest";
import type { Run } from "../protocol/entities";
import { formatElapsed, runLineText } from "./run-line";

const run = (over: Partial<Run>) => ({ status: "running", progress: null, error: null, ...over }) as Run;

describe("run lines", () => {
  it("say what the run is doing, or how it ended", () => {
    expect(runLineText(run({}), { waiting: false, name: "Deploy" })).toBe("Deploy is working…");
    expect(runLineText(run({ progress: "Step 2 of 3" }), { waiting: false, name: "Deploy" })).toBe("Deploy is working · Step 2 of 3");
    expect(runLineText(run({}), { waiting: true, name: "Deploy" })).toBe("Deploy is waiting for your answer");
    expect(runLineText(run({ status: "failed", error: "boom" }), { waiting: false, name: "Deploy" })).toBe("Deploy failed: boom");
    expect(runLineText(run({ status: "succeeded" }), { waiting: false, name: "Order coffee" })).toBe("Order coffee finished");
  });

  it("formats elapsed time", () => {
    expect([formatElapsed(4), formatElapsed(125), formatElapsed(120), formatElapsed(3_780)]).toEqual(["4 s", "2 min 5 s", "2 min", "1 h 3 min"]);
  });
});
