import { describe, expect, it } from "vitest";
import { mayStopRun, stopRefusal } from "./run-stop";

describe("who may stop a run", () => {
  const run = { ownerId: "alice", starterId: "bob" };
  it("its starter, the chat's owner and administrators; not another member", () => {
    expect(mayStopRun(run, { name: "bob", admin: false })).toBe(true);
    expect(mayStopRun(run, { name: "alice", admin: false })).toBe(true);
    expect(mayStopRun(run, { name: "carol", admin: true })).toBe(true);
    expect(mayStopRun(run, { name: "carol", admin: false })).toBe(false);
    expect(mayStopRun({ ownerId: "alice", starterId: null }, { name: "bob", admin: false })).toBe(false);
  });
  it("says who may", () => {
    expect(stopRefusal(run)).toBe("Only bob, who started it, this chat's owner (alice) or an administrator may stop this run.");
    expect(stopRefusal({ ownerId: "alice", starterId: "alice" })).toBe("Only this chat's owner (alice) or an administrator may stop this run.");
  });
});
