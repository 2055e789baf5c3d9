import { isFinalRunStatus, type FinalRunStatus } from "../../protocol/entities";
import type { JournalRecord } from "../../protocol/ipc";
import type { JsonValue, QuestionOutcome } from "../../protocol/question";
import type { Db } from "../db/client";
import { parseJson } from "../db/mappers";


/**
 * A run's journal as its worker replays it: steps and messages with what they produced,
 * questions and child runs with how they ended (or null while they are still open).
 */
export async function loadJournal(db: Db, runId: string): Promise<JournalRecord[]> {
  const entries = await db.journalEntry.findMany({ where: { runId }, orderBy: { seq: "asc" } });
  const questionIds = entries.flatMap((e) => (e.questionId ? [e.questionId] : []));
  const childIds = entries.flatMap((e) => (e.childRunId ? [e.childRunId] : []));
  const [questions, children] = await Promise.all([
    db.question.findMany({ where: { id: { in: questionIds } } }),
    db.run.findMany({ where: { id: { in: childIds } } }),
  ]);
  const questionById = new Map(questions.map((q) => [q.id, q]));
  const childById = new Map(children.map((r) => [r.id, r]));

  return entries.map((e): JournalRecord => {
    switch (e.kind) {
      case "step":
        return { kind: "step", seq: e.seq, digest: e.digest, output: parseJson<JsonValue>(e.output) };
      case "say": {
        // The text (kept since streamed replies): a replayed reply returns it.
        const text = e.output === null ? null : parseJson<JsonValue>(e.output);
        return typeof text === "string" ? { kind: "say", seq: e.seq, digest: e.digest, text } : { kind: "say", seq: e.seq, digest: e.digest };
      }
      case "question": {
        const q = questionById.get(e.questionId!);
        const settled = q && q.status !== "pending";
        return {
          kind: "question",
          seq: e.seq,
          digest: e.digest,
          questionId: e.questionId!,
          settlement: settled ? { outcome: q.status as QuestionOutcome, value: parseJson<JsonValue>(q.answer), feedback: q.feedback } : null,
        };
      }
      case "call": {
        const child = childById.get(e.childRunId!);
        const done = child && isFinalRunStatus(child.status);
        return {
          kind: "call",
          seq: e.seq,
          digest: e.digest,
          childRunId: e.childRunId!,
          settlement: done ? { status: child.status as FinalRunStatus, result: parseJson<JsonValue>(child.result), error: child.error } : null,
        };
      }
      default:
        throw new Error(`Unknown journal entry kind "${e.kind}" in run ${runId}`);
    }
  });
}
