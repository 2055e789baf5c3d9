import { describe, expect, it } from "vitest";
import { ChildToParentSchema, ParentToChildSchema } from "./ipc";
import { QuestionRejectCommandSchema, QuestionReplyCommandSchema } from "./commands";
import { SessionJoinCommandSchema } from "./socket";

const spec = { kind: "question", prompt: "Which?", options: ["a", "b"], timeoutMs: 1000 };

describe("IPC, child to parent", () => {
  it.each([
    { type: "worker.ready", pid: 42, functions: [{ name: "deploy", description: "Deploys.", command: "deploy", tool: true }], failures: [] },
    { type: "question.ask", runId: "r", seq: 0, digest: "d", questionId: "q", spec },
    { type: "run.say", runId: "r", seq: 1, digest: "d", text: "hello" },
    { type: "step.record", runId: "r", seq: 2, digest: "d", name: "fetch", output: { rows: [1, 2] } },
    { type: "run.call", runId: "r", seq: 3, digest: "d", functionName: "deploy", input: null },
    { type: "run.parked", runId: "r", parked: true },
    { type: "run.progress", runId: "r", text: null },
    { type: "run.finished", runId: "r", status: "succeeded", result: { ok: true } },
    { type: "run.finished", runId: "r", status: "failed", error: { code: "agent_error", message: "boom" } },
  ])("accepts a valid $type message", (msg) => {
    expect(ChildToParentSchema.safeParse(msg).success).toBe(true);
  });

  it.each([
    ["an unknown type", { type: "run.explode", runId: "r" }],
    ["a question with an empty prompt", { type: "question.ask", runId: "r", seq: 0, digest: "d", questionId: "q", spec: { ...spec, prompt: " " } }],
    ["a multi question without options", { type: "question.ask", runId: "r", seq: 0, digest: "d", questionId: "q", spec: { ...spec, options: [], multi: true } }],
    ["a confirm with options", { type: "question.ask", runId: "r", seq: 0, digest: "d", questionId: "q", spec: { ...spec, kind: "confirm" } }],
    ["a negative timeout", { type: "question.ask", runId: "r", seq: 0, digest: "d", questionId: "q", spec: { ...spec, timeoutMs: -1 } }],
    ["a question without its journal position", { type: "question.ask", runId: "r", digest: "d", questionId: "q", spec }],
    ["an empty chat message", { type: "run.say", runId: "r", seq: 1, digest: "d", text: "" }],
    ["a step whose output is not JSON", { type: "step.record", runId: "r", seq: 2, digest: "d", name: "x", output: undefined }],
    ["a finish with an unknown status", { type: "run.finished", runId: "r", status: "exploded" }],
    ["a message without runId", { type: "run.say", text: "hi" }],
  ])("refuses %s", (_name, msg) => {
    expect(ChildToParentSchema.safeParse(msg).success).toBe(false);
  });

  it("fills the defaults of a question spec", () => {
    const parsed = ChildToParentSchema.parse({ type: "question.ask", runId: "r", seq: 0, digest: "d", questionId: "q", spec: { kind: "confirm", prompt: "Sure?", timeoutMs: null } });
    expect(parsed).toMatchObject({ spec: { options: [], multi: false, allowCustom: false, detail: null, timeoutMs: null, replySchema: null } });
  });
});

describe("IPC, parent to child", () => {
  it.each([
    { type: "run.start", runId: "r", sessionId: "s", functionName: "deploy", input: { text: "hi" }, canAsk: true },
    {
      type: "run.start",
      runId: "r",
      sessionId: "s",
      functionName: "deploy",
      input: null,
      canAsk: true,
      journal: [
        { kind: "step", seq: 0, digest: "a", output: 1 },
        { kind: "question", seq: 1, digest: "b", questionId: "q", settlement: { outcome: "answered", value: "x", feedback: null } },
        { kind: "call", seq: 2, digest: "c", childRunId: "c1", settlement: null },
      ],
    },
    { type: "question.refused", runId: "r", questionId: "q", error: { code: "max_requests_exceeded", message: "too many" } },
    { type: "call.settled", runId: "r", seq: 2, childRunId: "c1", status: "succeeded", result: { ok: true }, error: null },
    { type: "run.park", runId: "r" },
    { type: "question.settled", runId: "r", questionId: "q", outcome: "answered", value: "a", feedback: null },
    { type: "question.settled", runId: "r", questionId: "q", outcome: "declined", value: null, feedback: "no" },
    { type: "run.cancel", runId: "r", reason: "stop" },
  ])("accepts a valid $type message", (msg) => {
    expect(ParentToChildSchema.safeParse(msg).success).toBe(true);
  });

  it.each([
    ["a settlement back to pending", { type: "question.settled", runId: "r", questionId: "q", outcome: "pending", value: null, feedback: null }],
    ["an answer that is not JSON", { type: "question.settled", runId: "r", questionId: "q", outcome: "answered", value: () => 1, feedback: null }],
    ["a journal entry of an unknown kind", { type: "run.start", runId: "r", sessionId: "s", functionName: "f", input: null, canAsk: true, journal: [{ kind: "nap", seq: 0, digest: "d" }] }],
    ["a start without a function", { type: "run.start", runId: "r", sessionId: "s", input: null, canAsk: true }],
  ])("refuses %s", (_name, msg) => {
    expect(ParentToChildSchema.safeParse(msg).success).toBe(false);
  });
});

describe("socket commands", () => {
  it("validate join, reply and reject payloads", () => {
    expect(SessionJoinCommandSchema.safeParse({ sessionId: "s" }).success).toBe(true);
    expect(SessionJoinCommandSchema.safeParse({}).success).toBe(false);
    expect(QuestionReplyCommandSchema.safeParse({ id: "q", value: ["a", "b"] }).success).toBe(true);
    expect(QuestionReplyCommandSchema.safeParse({ id: "q", value: true }).success).toBe(true);
    expect(QuestionReplyCommandSchema.safeParse({ id: "q", value: { count: 3 }, commandId: "c", digest: "d" }).success).toBe(true);
    expect(QuestionReplyCommandSchema.safeParse({ id: "q" }).success).toBe(false);
    expect(QuestionReplyCommandSchema.safeParse({ value: "a" }).success).toBe(false);
    expect(QuestionRejectCommandSchema.safeParse({ id: "q" }).success).toBe(true);
    expect(QuestionRejectCommandSchema.safeParse({ id: "q", message: 7 }).success).toBe(false);
  });
});
