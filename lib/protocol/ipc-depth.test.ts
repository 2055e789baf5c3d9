import { describe, expect, it } from "vitest";
import { ChildToParentSchema, ParentToChildSchema } from "./ipc";
import { MAX_RUN_JSON_DEPTH } from "./json-input";

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { v: value };
  return value;
};

const parse = (schema: typeof ChildToParentSchema | typeof ParentToChildSchema, message: unknown) => {
  try {
    return schema.safeParse(message).success;
  } catch (err) {
    return `threw: ${(err as Error).message}`;
  }
};

/** JSON a run produces crosses IPC bounded in nesting, so no recursive reader overflows on it. */
describe("IPC messages bound the nesting of the JSON they carry", () => {
  const spec = (replySchema: unknown) => ({ kind: "question", prompt: "Which?", timeoutMs: null, replySchema });
  const messages = (value: unknown) =>
    [
      [ChildToParentSchema, { type: "step.record", runId: "r", seq: 1, digest: "d", name: "s", output: value }],
      [ChildToParentSchema, { type: "run.call", runId: "r", seq: 1, digest: "d", functionName: "f", input: value }],
      [ChildToParentSchema, { type: "run.finished", runId: "r", status: "succeeded", result: value }],
      [ChildToParentSchema, { type: "question.ask", runId: "r", seq: 0, digest: "d", questionId: "q", spec: spec({ properties: value }) }],
      [ParentToChildSchema, { type: "run.start", runId: "r", sessionId: "s", functionName: "f", input: value, canAsk: true }],
      [ParentToChildSchema, { type: "question.settled", runId: "r", questionId: "q", outcome: "answered", value, feedback: null }],
    ] as const;

  it("refuses (without throwing) values nested thousands deep", () => {
    for (const [schema, message] of messages(nested(5_000))) expect(parse(schema, message)).toBe(false);
  });

  it("takes values nested up to the ceiling", () => {
    for (const [schema, message] of messages(nested(MAX_RUN_JSON_DEPTH - 4))) expect(parse(schema, message)).toBe(true);
  });
});
