import { ErrorCode } from "@slack/web-api";
import { describe, expect, it } from "vitest";
import { aQuestion } from "../../../tests/helpers/questions";
import { SLACK_ACTIONS } from "../../protocol/slack";
import { escapeMrkdwn, questionMessage, questionText } from "./slack-blocks";
import { slackFailure } from "./slack-outbox";
import { answerModal, fieldBlockId, readAnswerModal } from "./slack-views";

const ctx = { chatTitle: "Release <4.2>", cardUrl: null };
const controls = (blocks: ReturnType<typeof questionMessage>) => blocks.flatMap((b) => (b.type === "actions" ? b.elements : [])) as Array<Record<string, any>>;

describe("a question's Slack message", () => {
  it("shows text as typed: Slack's three control characters are escaped, so a prompt cannot mention @channel or link", () => {
    expect(escapeMrkdwn("a <!channel> & <https://x|y>")).toBe("a &lt;!channel&gt; &amp; &lt;https://x|y&gt;");
    const blocks = questionMessage(aQuestion({ prompt: "Ping <!here>?" }), ctx);
    expect(JSON.stringify(blocks)).toContain("Ping &lt;!here&gt;?");
    expect(JSON.stringify(blocks)).toContain("_Release &lt;4.2&gt;_");
  });

  it("labels longer than Slack's 75 characters are cut, while the button's value still names the option by its place", () => {
    const long = "x".repeat(120);
    const [first] = controls(questionMessage(aQuestion({ options: [long, "short"] }), ctx));
    expect(first!.text.text).toHaveLength(75);
    expect(first!.value).toBe("q1:0");
  });

  it("a choice that takes its own words offers Other…; more than ten ticks become a multi-select", () => {
    expect(controls(questionMessage(aQuestion({ allowCustom: true }), ctx)).map((c) => c.text?.text)).toEqual(["production", "staging", "Other…"]);
    const many = Array.from({ length: 12 }, (_, i) => `option ${i}`);
    const [pick, send] = controls(questionMessage(aQuestion({ options: many, multi: true }), ctx));
    expect(pick!.type).toBe("multi_static_select");
    expect(send!.action_id).toBe(SLACK_ACTIONS.multiSend);
  });

  it("once settled, says how it ended and offers nothing more", () => {
    const blocks = questionMessage(aQuestion({ status: "cancelled", closedBy: "stop", closedAt: "2026-01-01T00:01:00.000Z" }), ctx);
    expect(controls(blocks)).toEqual([]);
    expect(JSON.stringify(blocks)).toContain("Cancelled, when the run was stopped");
  });

  it("its notification text says who asks what, in one line of at most 300 characters", () => {
    expect(questionText(aQuestion())).toBe("deploy asks: Which environment?");
    expect(questionText(aQuestion({ prompt: "y".repeat(500) }))).toHaveLength(300);
  });
});

describe("the answer modal", () => {
  const form = aQuestion({
    options: [],
    replySchema: { type: "object", properties: { city: { type: "string", title: "City" }, ok: { type: "boolean" }, size: { enum: ["S", "M"] } }, required: ["city"] },
  });

  it("has an input per form field, and reads them back as the form's content", () => {
    const view = answerModal(form);
    expect(view.blocks.filter((b) => b.type === "input").map((b) => (b as { block_id: string }).block_id)).toEqual([fieldBlockId("city"), fieldBlockId("ok"), fieldBlockId("size")]);
    const values = {
      [fieldBlockId("city")]: { value: { type: "plain_text_input", value: " Lisbon " } },
      [fieldBlockId("ok")]: { value: { type: "checkboxes", selected_options: [{ value: "true" }] } },
      [fieldBlockId("size")]: { value: { type: "static_select", selected_option: { value: "M" } } },
    };
    expect(readAnswerModal(form, values)).toEqual({ ok: true, value: { city: "Lisbon", ok: true, size: "M" } });
  });

  it("a required field left empty is an error beside its input", () => {
    const read = readAnswerModal(form, { [fieldBlockId("city")]: { value: { type: "plain_text_input", value: "" } } });
    expect(read).toMatchObject({ ok: false, errors: { [fieldBlockId("city")]: expect.any(String) } });
  });
});

describe("what a Web API failure means for the outbox", () => {
  it("a 429 waits Slack's Retry-After; an error no retry changes is final; anything else backs off", () => {
    expect(slackFailure({ code: ErrorCode.RateLimitedError, retryAfter: 7 })).toMatchObject({ delayMs: 7_000, final: false });
    expect(slackFailure({ code: ErrorCode.PlatformError, data: { error: "channel_not_found" } })).toMatchObject({ error: "Slack answered channel_not_found", final: true });
    expect(slackFailure({ code: ErrorCode.PlatformError, data: { error: "internal_error" } })).toMatchObject({ final: false });
    expect(slackFailure(new Error("socket hang up"))).toEqual({ error: "socket hang up", final: false });
  });
});
