import { describe, expect, it } from "vitest";
import { readableLine } from "./readable";

describe("a log line for a person", () => {
  it("says the time, level, message and ids, then the error's stack, without what every line repeats", () => {
    const time = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const line = JSON.stringify({
      level: 50,
      time,
      pid: 1,
      hostname: "h",
      node: "n1",
      runId: "r1",
      fn: "chat",
      msg: "[runs] run r1 failed",
      err: { type: "Error", message: "boom", stack: "Error: boom\n    at x" },
    });
    expect(readableLine(line)).toBe("03:04:05.678 ERROR [runs] run r1 failed  (runId=r1 fn=chat)\n    Error: boom\n        at x\n");
  });

  it("puts the ids beside a long message's first line", () => {
    expect(readableLine(JSON.stringify({ level: 30, time: 0, runId: "r1", msg: "first\nsecond" }))).toBe("00:00:00.000 INFO first  (runId=r1)\n    second\n");
  });

  it("passes a line that is not JSON through", () => {
    expect(readableLine("plain\n")).toBe("plain\n");
  });
});
