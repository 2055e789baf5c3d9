import type { SqlReader } from "../sql-executor";
import type { RowOf } from "../typed-sql";
import * as S from "./run-statements";

/** A journal entry's row, as the worker's replay reads it. */
export type JournalRow = RowOf<typeof S.journal>;

/** Inside a transaction: whether the run still holds lease `epoch`. */
export async function holdsEpoch(tx: SqlReader, runId: string, epoch: number): Promise<boolean> {
  return (await tx.rows(S.heldRun, { id: runId, epoch })).length > 0;
}

/** Run rows read outside the run store: a run's detail, a session's history, the CLI. */
export function createRunReads(exec: SqlReader) {
  return {
    find: async (id: string) => (await exec.rows(S.findRun, { id }))[0],
    journalOf: (runId: string) => exec.rows(S.journalOf, { runId }),
    tree: (id: string, rootRunId: string) => exec.rows(S.runTree, { id, rootRunId }),
    between: (sessionId: string, from: Date | null, to: Date | null) => exec.rows(S.runsBetween, { sessionId, from, to }),
    byIds: (sessionId: string, ids: string[]) => exec.rows(S.runsByIds, { sessionId, ids: JSON.stringify(ids) }),
    activeInSession: (sessionId: string) => exec.rows(S.activeInSession, { sessionId }),
  };
}
