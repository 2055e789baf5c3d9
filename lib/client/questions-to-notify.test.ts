import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import { questionsToNotify } from "./questions-to-notify";

describe("which questions a tab notifies of", () => {
  const ids = (r: { fresh: { id: string }[] }) => r.fresh.map((q) => q.id);

  it("a new question anyone may answer, once", () => {
    const first = questionsToNotify([aQuestion({ id: "a" })], "bob", new Set());
    expect(ids(first)).toEqual(["a"]);
    expect(ids(questionsToNotify([aQuestion({ id: "a" })], "bob", first.seen))).toEqual([]);
  });

  it("a question for someone else does not notify, until an escalation names the viewer; then once", () => {
    const waiting = aQuestion({ id: "q", answerers: ["carol"], escalate: [{ afterMs: 60_000, to: ["bob"] }], escalated: 0 });
    const before = questionsToNotify([waiting], "bob", new Set());
    expect(ids(before)).toEqual([]);
    const escalated = { ...waiting, escalated: 1 };
    const after = questionsToNotify([escalated], "bob", before.seen);
    expect(ids(after)).toEqual(["q"]);
    expect(ids(questionsToNotify([escalated], "bob", after.seen))).toEqual([]);
  });

  it("a question naming people waits until the viewer is known; a vote already cast is no news", () => {
    const named = aQuestion({ id: "q", answerers: ["bob"] });
    const unknown = questionsToNotify([named], null, new Set());
    expect(ids(unknown)).toEqual([]);
    expect(ids(questionsToNotify([named], "bob", unknown.seen))).toEqual(["q"]);
    const voted = aQuestion({ id: "v", kind: "approval", approvals: { required: 2, from: null, rejections: 1 }, votes: [{ user: "bob", decision: "allow", at: "2026-01-01T00:00:00.000Z" }] });
    expect(ids(questionsToNotify([voted], "bob", new Set()))).toEqual([]);
  });
});
