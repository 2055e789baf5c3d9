import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import type { RunDetail } from "../../protocol/entities";
import type { Db } from "../store/db/client";
import { parseJson, toRun } from "../store/db/mappers";
import { createRunReads } from "../store/runs/run-reads";
import { createWebhookStore } from "../store/webhooks/webhook-store";
import { createSlackStore } from "../store/slack/slack-store";
import { createEmailStore } from "../store/email/email-store";
import type { QuestionService } from "../questions/question-service";
import { treeBelow } from "./run-tree";

/** The run, its journal, the pending questions of its whole tree (each naming the run that owns it), its own questions, their webhook deliveries, Slack messages and mails. */
export async function loadRunDetail(db: Db, questions: Pick<QuestionService, "listPending" | "listOfRun">, id: string): Promise<RunDetail> {
  const { exec } = db;
  const reads = createRunReads(exec);
  const row = await reads.find(id);
  if (!row) throw new AppError("not_found:run", `No run with id ${quoteId(id)}.`);
  const run = toRun(row);
  // A run and every run below it (its children, their children, ...) ask the pending questions shown.
  const [entries, tree] = await Promise.all([reads.journalOf(id), reads.tree(id, run.rootRunId)]);
  return {
    ...run,
    journal: entries.map((e) => ({ ...e, output: parseJson(e.output) })),
    pendingQuestions: await questions.listPending({ runIds: [...treeBelow(id, tree)] }),
    questions: await questions.listOfRun(id),
    deliveries: await createWebhookStore(exec).ofRun(id),
    slack: await createSlackStore(exec).ofRun(id),
    email: await createEmailStore(exec).ofRun(id),
  };
}
