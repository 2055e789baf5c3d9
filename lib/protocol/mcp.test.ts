import { describe, expect, it } from "vitest";
import { AskUserArgsSchema, PermissionPromptArgsSchema, approvalResultOf, askResultOf, askResultText, permissionPromptResultOf } from "./mcp";
import type { Question } from "./question";

const settled = (fields: Partial<Question>): Question => ({ status: "answered", answer: null, default: null, feedback: null, ...fields }) as Question;

describe("the MCP tools' contracts", () => {
  it("ask_user's arguments are checked as an ask: a form asks nothing else, multiple needs options", () => {
    expect(AskUserArgsSchema.safeParse({ question: "Deploy?", options: ["yes", "no"], idempotency_key: "k" }).success).toBe(true);
    expect(AskUserArgsSchema.safeParse({ question: "Deploy?", form: { type: "object", properties: {} }, options: ["a"] }).success).toBe(false);
    expect(AskUserArgsSchema.safeParse({ question: "Deploy?", multiple: true }).success).toBe(false);
    expect(AskUserArgsSchema.safeParse({ question: "Deploy?", from: "me" }).success).toBe(false);
  });

  it("an ask's outcome: the answer; a timeout's default; a decline's feedback; a withdrawal as cancelled", () => {
    expect(askResultOf(settled({ answer: ["a", "b"] }))).toEqual({ outcome: "answered", value: ["a", "b"] });
    expect(askResultOf(settled({ status: "timed_out", default: "eu" }))).toEqual({ outcome: "timed_out", value: "eu" });
    expect(askResultOf(settled({ status: "timed_out" }))).toEqual({ outcome: "timed_out" });
    expect(askResultOf(settled({ status: "declined", feedback: "later" }))).toEqual({ outcome: "declined", feedback: "later" });
    expect(askResultOf(settled({ status: "expired", feedback: "Stopped by you." }))).toEqual({ outcome: "cancelled", feedback: "Stopped by you." });
    expect(askResultText({ outcome: "answered", value: { v: 1 } })).toBe('{"v":1}');
    expect(askResultText({ outcome: "declined", feedback: "later" })).toBe("The person declined to answer. later");
  });

  it("an approval's decision: always for either Allow always, once, or reject for anything but an answer", () => {
    expect(approvalResultOf(settled({ answer: "always_wider" }))).toEqual({ outcome: "answered", decision: "always" });
    expect(approvalResultOf(settled({ answer: "once", feedback: 'Allowed by the rule "Bash npm test".' }))).toMatchObject({ decision: "once" });
    expect(approvalResultOf(settled({ status: "timed_out" }))).toEqual({ outcome: "timed_out", decision: "reject" });
    expect(approvalResultOf(settled({ status: "cancelled" }))).toEqual({ outcome: "cancelled", decision: "reject" });
  });

  it("Claude Code's permission prompt: allow keeps the input as it was; deny says why", () => {
    const input = { command: "ls" };
    expect(permissionPromptResultOf({ outcome: "answered", decision: "once" }, input)).toEqual({ behavior: "allow", updatedInput: input });
    expect(permissionPromptResultOf({ outcome: "declined", decision: "reject", feedback: "no" }, input)).toEqual({ behavior: "deny", message: "Rejected. no" });
    expect(permissionPromptResultOf({ outcome: "timed_out", decision: "reject" }, input)).toEqual({ behavior: "deny", message: "Rejected (timed out)." });
    expect(PermissionPromptArgsSchema.safeParse({ tool_name: "Bash", input, tool_use_id: "toolu_1" }).success).toBe(true);
    expect(PermissionPromptArgsSchema.safeParse({ tool_name: "Bash", input: "ls" }).success).toBe(false);
  });
});
