import { isFinalRunStatus, type FinalRunStatus } from "../../protocol/entities";
import type { JournalRecord } from "../../protocol/ipc";
import type { JsonValue, QuestionOutcome } from "../../protocol/question";
import { parseJson } from "../store/db/mappers";
import type { JournalRow } from "../store/runs/run-reads";

/** One entry as the worker replays it. */
export function journalRecordOf(e: JournalRow, runId: string): JournalRecord {
  switch (e.kind) {
    case "step":
      return { kind: "step", seq: e.seq, digest: e.digest, output: parseJson<JsonValue>(e.output) };
    case "say": {
      // The text (kept since streamed replies): a replayed reply returns it.
      const text = e.output === null ? null : parseJson<JsonValue>(e.output);
      return typeof text === "string" ? { kind: "say", seq: e.seq, digest: e.digest, text } : { kind: "say", seq: e.seq, digest: e.digest };
    }
    case "question": {
      const settled = e.questionStatus !== null && e.questionStatus !== "pending";
      return {
        kind: "question",
        seq: e.seq,
        digest: e.digest,
        questionId: e.questionId!,
        settlement: settled
          ? {
              outcome: e.questionStatus as QuestionOutcome,
              value: parseJson<JsonValue>(e.questionAnswer),
              feedback: e.questionFeedback,
              ...(e.questionEditedInput !== null && { input: parseJson<Record<string, JsonValue>>(e.questionEditedInput) }),
            }
          : null,
      };
    }
    case "call": {
      const done = e.childStatus !== null && isFinalRunStatus(e.childStatus);
      return {
        kind: "call",
        seq: e.seq,
        digest: e.digest,
        childRunId: e.childRunId!,
        settlement: done ? { status: e.childStatus as FinalRunStatus, result: parseJson<JsonValue>(e.childResult), error: e.childError } : null,
      };
    }
    default:
      throw new Error(`Unknown journal entry kind "${e.kind}" in run ${runId}`);
  }
}
