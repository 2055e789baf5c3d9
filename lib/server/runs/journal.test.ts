import { describe, expect, it } from "vitest";
import { JournalRecordSchema } from "../../protocol/ipc";
import { journalRecordOf } from "./journal";

const questionRow = (over: Partial<Parameters<typeof journalRecordOf>[0]> = {}): Parameters<typeof journalRecordOf>[0] => ({
  seq: 3,
  kind: "question",
  digest: "d",
  output: null,
  questionId: "q1",
  childRunId: null,
  questionStatus: "answered",
  questionAnswer: JSON.stringify("once"),
  questionFeedback: null,
  questionEditedInput: null,
  childStatus: null,
  childResult: null,
  childError: null,
  ...over,
});

describe("a question's journal record, as a resumed run replays it", () => {
  it("carries the input an approval was allowed with when the person edited it, and nothing more when they did not", () => {
    const edited = journalRecordOf(questionRow({ questionEditedInput: JSON.stringify({ command: "npm test -- --run" }) }), "r1");
    expect(edited).toEqual({ kind: "question", seq: 3, digest: "d", questionId: "q1", settlement: { outcome: "answered", value: "once", feedback: null, input: { command: "npm test -- --run" } } });
    expect(JournalRecordSchema.parse(edited)).toEqual(edited);
    expect(journalRecordOf(questionRow(), "r1")).toEqual({ kind: "question", seq: 3, digest: "d", questionId: "q1", settlement: { outcome: "answered", value: "once", feedback: null } });
  });

  it("a pending question has no settlement yet", () => {
    expect(journalRecordOf(questionRow({ questionStatus: "pending", questionAnswer: null }), "r1")).toMatchObject({ settlement: null });
  });
});
