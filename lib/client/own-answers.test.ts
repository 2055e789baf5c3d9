import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import type { ReplyReceipt } from "../protocol/question";
import type { Ack } from "../protocol/socket";
import { afterAck, lostToSomeoneElse, stillOpen, type OwnAnswers } from "./own-answers";

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
