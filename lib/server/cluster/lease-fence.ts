import { holdsEpoch } from "../store/runs/run-reads";
import type { SqlTx } from "../store/sql-executor";

/**
 * The fence on the writes of the node that executes a run. Every take of a run's lease raises its
 * epoch, and the node learns the epoch its take set; each write it then makes for the run (journal
 * entries, status moves, questions, child runs, messages, the end) holds only while the run's
 * epoch is still that one. A write that finds another epoch changes nothing and throws
 * RunLeaseLost: another node has taken the run over, and this node stops executing it.
 */

/** The epoch a write holds; null (or undefined) where runs are not leased: nothing is checked. */
export type HeldEpoch = number | null | undefined;

export class RunLeaseLost extends Error {
  override readonly name = "RunLeaseLost";
  constructor(readonly runId: string) {
    super(`Run ${runId} was taken over by another server; this server no longer executes it.`);
  }
}

export const isRunLeaseLost = (err: unknown): err is RunLeaseLost => err instanceof RunLeaseLost;

/** Whether a write holds an epoch to check (runs are leased). */
export const fenced = (epoch: HeldEpoch): epoch is number => epoch !== null && epoch !== undefined;

/** A fenced insert that inserted nothing: the epoch moved on, or (unfenced) the run is gone. */
export const noRunOrLeaseLost = (runId: string, epoch: HeldEpoch): Error => (fenced(epoch) ? new RunLeaseLost(runId) : new Error(`No run with id ${runId}.`));

/**
 * Inside a transaction: goes on while the run holds `epoch` (on PostgreSQL the row stays locked
 * until the commit, so a take waits for it; SQLite's write transaction excludes it already), else
 * throws RunLeaseLost, which rolls the transaction back.
 */
export async function holdEpoch(tx: SqlTx, runId: string, epoch: HeldEpoch): Promise<void> {
  if (fenced(epoch) && !(await holdsEpoch(tx, runId, epoch))) throw new RunLeaseLost(runId);
}
