import { describe, expect, it } from "vitest";
import {
  commandPayload,
  parseCommand,
  QuestionRejectCommandSchema,
  QuestionReplyCommandSchema,
  RejectBodySchema,
  ReplyBodySchema,
  ResumeBodySchema,
  StartRunBodySchema,
  StopRunBodySchema,
} from "./commands";
import { parseOrThrow } from "./errors";
import { MAX_JSON_BYTES, MAX_JSON_DEPTH, MAX_REPLY_DEPTH } from "./json-input";
import { MAX_ANSWER_CHARS } from "./question";
import { PostMessageBodySchema } from "./rest";
import { SessionJoinCommandSchema } from "./socket";

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

const errorOf = (work: () => unknown): { code?: string; message?: string } => {
  try {
    work();
  } catch (err) {
    return err as { code: string; message: string };
  }
  return {};
};

describe("command bodies are strict", () => {
  const cases = [
    ["reply body", ReplyBodySchema, { value: "x" }],
    ["reject body", RejectBodySchema, {}],
    ["start-run body", StartRunBodySchema, { function: "f" }],
    ["resume body", ResumeBodySchema, {}],
    ["stop body", StopRunBodySchema, {}],
    ["socket reply", QuestionReplyCommandSchema, { id: "q", value: "x" }],
    ["socket reject", QuestionRejectCommandSchema, { id: "q" }],
    ["session join", SessionJoinCommandSchema, { sessionId: "s" }],
    ["chat message", PostMessageBodySchema, { text: "hi" }],
  ] as const;

  for (const [name, schema, valid] of cases) {
    it(`${name}: takes its own keys and refuses an unknown one, naming it`, () => {
      expect(schema.safeParse(valid).success).toBe(true);
      const error = errorOf(() => parseOrThrow(schema, { ...valid, surprise: 1 }));
      expect(error.code).toBe("bad_request");
      expect(error.message).toContain('"surprise"');
    });
  }

  it("a reply body sent to reject is refused, not taken as a decline", () => {
    const error = errorOf(() => parseOrThrow(RejectBodySchema, { value: "staging", digest: null }));
    expect(error).toMatchObject({ code: "bad_request", message: expect.stringContaining('"value"') });
  });

  it("every command kind is strict", () => {
    for (const [kind, data] of [
      ["send_input", { questionId: "q", value: 1 }],
      ["reject_input", { questionId: "q" }],
      ["start_run", { sessionId: "s", function: "f" }],
      ["resume", { runId: "r" }],
      ["stop_run", { runId: "r" }],
    ] as const) {
      expect(errorOf(() => parseCommand(kind, { ...data, extra: true })).code).toBe("bad_request");
    }
  });

  it("a start-run policy with an unknown limit is refused", () => {
    expect(StartRunBodySchema.safeParse({ function: "f", policy: { maxReplyBytes: 10, maxBananas: 1 } }).success).toBe(false);
  });
});

describe("JSON a command carries is checked against the ceilings, without recursion", () => {
  it("a reply nested 2,200 deep is reply_too_deep (422) on every transport's schema", () => {
    for (const work of [
      () => parseOrThrow(ReplyBodySchema, { value: nested(2_200) }),
      () => parseOrThrow(QuestionReplyCommandSchema, { id: "q", value: nested(2_200) }),
      () => commandPayload("send_input", { questionId: "q", value: nested(100_000) }),
    ]) {
      expect(errorOf(work)).toMatchObject({ code: "reply_too_deep", status: 422 });
    }
  });

  it("a reply within the reply depth passes; one level more does not", () => {
    expect(ReplyBodySchema.safeParse({ value: nested(MAX_REPLY_DEPTH) }).success).toBe(true);
    expect(errorOf(() => parseOrThrow(ReplyBodySchema, { value: nested(MAX_REPLY_DEPTH + 1) })).code).toBe("reply_too_deep");
  });

  it("a reply over the global byte ceiling is reply_too_large (413)", () => {
    expect(errorOf(() => parseOrThrow(ReplyBodySchema, { value: "x".repeat(MAX_JSON_BYTES) }))).toMatchObject({ code: "reply_too_large", status: 413 });
  });

  it("a reply that is not plain JSON is reply_not_json; a missing value is bad_request", () => {
    expect(errorOf(() => parseCommand("send_input", { questionId: "q", value: Number.NaN })).code).toBe("reply_not_json");
    expect(errorOf(() => parseCommand("send_input", { questionId: "q" })).code).toBe("bad_request");
  });

  it("a run input 3,000 deep is input_too_deep; within the ceiling it passes; it may be absent", () => {
    expect(errorOf(() => parseOrThrow(StartRunBodySchema, { function: "f", input: nested(3_000) }))).toMatchObject({ code: "input_too_deep" });
    expect(StartRunBodySchema.safeParse({ function: "f", input: nested(MAX_JSON_DEPTH) }).success).toBe(true);
    expect(StartRunBodySchema.safeParse({ function: "f" }).success).toBe(true);
    expect(errorOf(() => parseOrThrow(StartRunBodySchema, { function: "f", input: "x".repeat(MAX_JSON_BYTES) })).code).toBe("input_too_large");
  });

  it("a decline message is at most MAX_ANSWER_CHARS", () => {
    expect(RejectBodySchema.safeParse({ message: "x".repeat(MAX_ANSWER_CHARS) }).success).toBe(true);
    expect(RejectBodySchema.safeParse({ message: "x".repeat(MAX_ANSWER_CHARS + 1) }).success).toBe(false);
  });
});
