import type { QueryCreator, Selectable } from "kysely";
import type { DB } from "../typed-sql";
import { statement } from "../typed-sql";

/** A question's row with its run's root (toQuestionWithRoot). */
export type QuestionWithRoot = Selectable<DB["Question"]> & { runRootRunId: string | null };

const questionsOf = (q: QueryCreator<DB>, sessionId: string) =>
  q.selectFrom("Question as q").innerJoin("Run as r", "r.id", "q.runId").selectAll("q").select("r.rootRunId as runRootRunId").where("q.sessionId", "=", sessionId);

/** A session's pending questions, oldest first. */
export const pendingOfSession = statement((q, p: { sessionId: string }) => questionsOf(q, p.sessionId).where("q.status", "=", "pending").orderBy("q.createdAt").orderBy("q.id"));

/** A session's closed questions, most recently closed first. */
export const closedOfSession = statement((q, p: { sessionId: string; limit: number }) => questionsOf(q, p.sessionId).where("q.status", "<>", "pending").orderBy("q.closedAt", "desc").limit(p.limit));

/** A session's runs, oldest first. */
export const runsOfSession = statement((q, p: { sessionId: string }) => q.selectFrom("Run").selectAll().where("sessionId", "=", p.sessionId).orderBy("createdAt").orderBy("id"));

/** A run and the other runs of its tree (`rootRunId`), each with its parent. */
export const runTree = statement((q, p: { id: string; rootRunId: string }) =>
  q
    .selectFrom("Run")
    .select(["id", "parentRunId"])
    .where((eb) => eb.or([eb("id", "=", p.id), eb("rootRunId", "=", p.rootRunId)])),
);

/** A run's journal, in order. */
export const journalOf = statement((q, p: { runId: string }) =>
  q.selectFrom("JournalEntry").select(["seq", "kind", "name", "questionId", "childRunId", "output"]).where("runId", "=", p.runId).orderBy("seq"),
);
