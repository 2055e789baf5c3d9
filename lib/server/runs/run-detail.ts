import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import type { RunDetail } from "../../protocol/entities";
import type { Db } from "../db/client";
import { parseJson, toRun } from "../db/mappers";
import type { QuestionService } from "../questions/question-service";
import { treeBelow } from "./run-tree";

/** A run and every run below it (its children, their children, ...). */
export async function runTreeIds(db: Db, runId: string, rootRunId: string): Promise<string[]> {
  const tree = await db.run.findMany({ where: { OR: [{ id: runId }, { rootRunId }] }, select: { id: true, parentRunId: true } });
  return [...treeBelow(runId, tree)];
}

/** The run, its journal, and the pending questions of its whole tree, each naming the run that owns it. */
export async function loadRunDetail(db: Db, questions: Pick<QuestionService, "listPending" | "listOfRun">, id: string): Promise<RunDetail> {
  const row = await db.run.findUnique({ where: { id } });
  if (!row) throw new AppError("not_found:run", `No run with id ${quoteId(id)}.`);
  const run = toRun(row);
  const [entries, runIds] = await Promise.all([db.journalEntry.findMany({ where: { runId: id }, orderBy: { seq: "asc" } }), runTreeIds(db, id, run.rootRunId)]);
  return {
    ...run,
    journal: entries.map((e) => ({ seq: e.seq, kind: e.kind, name: e.name, questionId: e.questionId, childRunId: e.childRunId, output: parseJson(e.output) })),
    pendingQuestions: await questions.listPending({ runIds }),
    questions: await questions.listOfRun(id),
  };
}
