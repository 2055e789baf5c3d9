import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import type { ReplyReceipt } from "../protocol/question";
import type { Ack } from "../protocol/socket";
import { afterAck, afterReceipt, lostToSomeoneElse, stillOpen, type OwnAnswers } from "./own-answers";

const color = aQuestion({ id: "color", prompt: "Which color?" });
const size = aQuestion({ id: "size", prompt: "Which size?" });
const ack = (outcome: ReplyReceipt["outcome"], q = color, closedBy = "socket"): Ack<ReplyReceipt> => ({
  ok: true,
  data: { outcome, question: { ...q, status: outcome === "already_answered" || outcome === "answered" ? "answered" : "pending", closedBy } } as ReplyReceipt,
});

describe("own answers: a two-question card answered by two fast keys", () => {
  it("drops the question this tab answered before its broadcast retracts it, so the next key reaches the second", () => {
    let own: OwnAnswers = new Set();
    expect(stillOpen([color, size], own).map((q) => q.id)).toEqual(["color", "size"]);
    own = afterAck(own, "color", ack("answered"));
    expect(stillOpen([color, size], own).map((q) => q.id)).toEqual(["size"]);
    own = afterAck(own, "size", ack("queued", size));
    expect(stillOpen([color, size], own)).toEqual([]);
  });

  it("a failed answer keeps the question", () => {
    const own = afterAck(new Set(), "color", { ok: false, error: { code: "internal", message: "boom" } });
    expect(stillOpen([color, size], own).map((q) => q.id)).toEqual(["color", "size"]);
    expect(afterAck(own, "color", ack("stale_target")).size).toBe(0);
  });

  it("says 'already answered' only when someone else answered first", () => {
    const own = afterAck(new Set(), "color", ack("answered"));
    const lostColor = ack("already_answered", color);
    const lostSize = ack("already_answered", size);
    expect(lostColor.ok && lostToSomeoneElse(lostColor.data, own)).toBe(false);
    expect(lostSize.ok && lostToSomeoneElse(lostSize.data, own)).toBe(true);
    const won = ack("answered", size);
    expect(won.ok && lostToSomeoneElse(won.data, own)).toBe(false);
  });
});

describe("a vote on an approval that needs several people", () => {
  const approval = aQuestion({ id: "deploy", kind: "approval", options: [], approvals: { required: 2, from: null, rejections: 1 } });
  const voted: Ack<ReplyReceipt> = {
    ok: true,
    data: { kind: "reply", outcome: "voted", question: { ...approval, votes: [{ user: "bob", decision: "allow", at: "2026-01-01T00:00:01.000Z", feedback: null }] } } as unknown as ReplyReceipt,
  };

  it("counted but not deciding: the card stays (not answered here) and shows the vote (not lost, not retracted)", () => {
    const own = afterAck(new Set(), "deploy", voted);
    expect(own.size).toBe(0);
    expect(stillOpen([approval], own)).toEqual([approval]);
    expect(voted.ok && afterReceipt(voted.data, own)).toBe("update");
    expect(voted.ok && lostToSomeoneElse(voted.data, own)).toBe(false);
  });

  it("the other receipts do as before: a settlement retracts, someone else's is a late notice, a queued or stale one stays", () => {
    const own: OwnAnswers = new Set();
    const data = (a: Ack<ReplyReceipt>) => (a.ok ? a.data : null)!;
    expect(afterReceipt(data(ack("answered")), own)).toBe("retract");
    expect(afterReceipt(data(ack("already_answered")), own)).toBe("late");
    expect(afterReceipt(data(ack("already_answered")), new Set(["color"]))).toBe("retract");
    expect(afterReceipt(data(ack("queued")), own)).toBe("keep");
    expect(afterReceipt(data(ack("stale_target")), own)).toBe("keep");
  });
});
