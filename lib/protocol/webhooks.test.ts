import { describe, expect, it } from "vitest";
import { AskBodySchema } from "./asks";
import { AskUserArgsSchema } from "./mcp";
import { QuestionReadSchema, WebhookPayloadSchema } from "./webhooks";

const question = {
  id: "q1",
  sessionId: "s1",
  runId: "r1",
  rootRunId: "r1",
  owner: "deploy",
  seq: 0,
  pendingId: "p_1",
  targetDigest: "d",
  replySchema: null,
  kind: "question",
  approval: null,
  prompt: "Ship it?",
  options: ["yes", "no"],
  multi: false,
  allowCustom: false,
  detail: null,
  hasDefault: false,
  default: null,
  createdAt: "2026-12-05T10:00:00.000Z",
  expiresAt: null,
  status: "answered",
  answer: "yes",
  feedback: null,
  closedBy: "rest",
  closedAt: "2026-12-05T10:01:00.000Z",
};

describe("an ask's callbackUrl", () => {
  const ask = (callbackUrl: unknown) => AskBodySchema.safeParse({ question: "Ship it?", from: "ci", callbackUrl });

  it("is an http(s) URL of at most 2,000 characters", () => {
    expect(ask("http://127.0.0.1:8080/parley").success).toBe(true);
    expect(ask("https://hooks.example.com/p?x=1").success).toBe(true);
    for (const bad of ["ftp://127.0.0.1/x", "file:///etc/passwd", "javascript:alert(1)", "not a url", "", 42, `http://localhost/${"a".repeat(2_000)}`])
      expect(ask(bad).success, String(bad)).toBe(false);
  });

  it("is the ask API's alone: MCP's ask_user does not take it", () => {
    expect(AskUserArgsSchema.safeParse({ question: "Ship it?", callbackUrl: "http://127.0.0.1/x" }).success).toBe(false);
    expect(AskUserArgsSchema.safeParse({ question: "Ship it?" }).success).toBe(true);
  });
});

describe("the webhook payload", () => {
  it("is question.settled with when and the question", () => {
    expect(WebhookPayloadSchema.parse({ type: "question.settled", timestamp: question.closedAt, data: { question } }).data.question.answer).toBe("yes");
    expect(WebhookPayloadSchema.safeParse({ type: "question.asked", timestamp: question.closedAt, data: { question } }).success).toBe(false);
    expect(WebhookPayloadSchema.safeParse({ type: "question.settled", timestamp: "yesterday", data: { question } }).success).toBe(false);
    expect(WebhookPayloadSchema.safeParse({ type: "question.settled", timestamp: question.closedAt, data: {} }).success).toBe(false);
  });

  it("a question read carries its deliveries", () => {
    const delivery = {
      id: "msg_1",
      questionId: "q1",
      host: "127.0.0.1:9",
      status: "delivered",
      attempts: 2,
      lastError: null,
      nextAttemptAt: null,
      deliveredAt: question.closedAt,
      createdAt: question.closedAt,
    };
    expect(QuestionReadSchema.parse({ ...question, deliveries: [delivery] }).deliveries).toEqual([delivery]);
    expect(QuestionReadSchema.safeParse({ ...question, deliveries: [{ ...delivery, status: "sent" }] }).success).toBe(false);
  });
});
