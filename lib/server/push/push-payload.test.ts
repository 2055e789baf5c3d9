import { describe, expect, it } from "vitest";
import { aQuestion } from "../../../tests/helpers/questions";
import { PushPayloadSchema } from "../../protocol/push";
import { closedPayload, fitPayload, MAX_PUSH_PAYLOAD_BYTES, pushTopic, questionPayload } from "./push-payload";

describe("a question's push", () => {
  it("says who asks and what, in which chat, leads to the card, carries the digest and the buttons", () => {
    const q = aQuestion({ id: "q7", sessionId: "s1", kind: "confirm", owner: "deploy-bot", prompt: "Ship it?", options: [], targetDigest: "dg" });
    const payload = PushPayloadSchema.parse(JSON.parse(fitPayload(questionPayload(q, "Release"))));
    expect(payload).toEqual({
      type: "question",
      questionId: "q7",
      sessionId: "s1",
      title: "Deploy bot asks",
      body: "Ship it?\n— Release",
      tag: "q7",
      url: "/s/s1#question-q7",
      digest: "dg",
      buttons: [
        { action: "yes", title: "Yes", command: { kind: "reply", value: true } },
        { action: "no", title: "No", command: { kind: "reply", value: false } },
      ],
    });
  });

  it("a free-text question offers no buttons", () => {
    expect(questionPayload(aQuestion({ options: [] }), null).buttons).toEqual([]);
  });

  it("fits in a push: a long question is clipped, in any script; buttons go only when clipping the body is not enough", () => {
    for (const char of ["a", "é", "漢", "😀", '"', "\n"]) {
      const q = aQuestion({ prompt: char.repeat(10_000), options: ["one", "two"] });
      const json = fitPayload(questionPayload(q, "Chat"));
      expect(Buffer.byteLength(json), char).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
      expect(Buffer.byteLength(json), char).toBeGreaterThan(MAX_PUSH_PAYLOAD_BYTES - 200);
      const payload = PushPayloadSchema.parse(JSON.parse(json));
      expect(payload.type === "question" && payload.body.endsWith("…")).toBe(true);
      expect(payload.type === "question" && payload.buttons.length).toBe(2);
    }
    const huge = aQuestion({ prompt: "Pick", options: ["x".repeat(2_000), "y".repeat(2_000)] });
    const payload = PushPayloadSchema.parse(JSON.parse(fitPayload(questionPayload(huge, null))));
    expect(payload.type === "question" && payload.buttons).toEqual([]);
  });

  it("a retraction names the question and its tag; both share a short topic", () => {
    expect(closedPayload("q7")).toEqual({ type: "closed", questionId: "q7", tag: "q7" });
    expect(pushTopic("q7")).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(pushTopic("q7")).not.toBe(pushTopic("q8"));
  });
});
