import type { Tx } from "../db/client";
import type { RawSql } from "../db/raw-sql";

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

/** Prisma's filter for a write fenced by `epoch` (none where nothing is checked). */
export const holdingEpoch = (epoch: HeldEpoch) => (fenced(epoch) ? { leaseEpoch: epoch } : {});

/** A fenced insert that inserted nothing: the epoch moved on, or (unfenced) the run is gone. */
export const noRunOrLeaseLost = (runId: string, epoch: HeldEpoch): Error => (fenced(epoch) ? new RunLeaseLost(runId) : new Error(`No run with id ${runId}.`));

/** The run (first `?`) still holds the epoch (second `?`). */
export const HELD_SQL = `SELECT 1 AS "held" FROM "Run" WHERE "id" = ? AND "leaseEpoch" = ?`;

/** PostgreSQL: the run row holds the epoch parameter `epoch` (any epoch while that is null: runs are not leased). */
export const pgHolds = (epoch: string) => `(${epoch}::int IS NULL OR "leaseEpoch" = ${epoch}::int)`;

/**
 * PostgreSQL's one-statement inserts: a CTE `held` with one row while the run (parameter `id`)
 * holds the epoch, locked FOR SHARE until the statement commits, so that a take, which updates the
 * row, waits for the insert: an insert never lands after a take it did not see.
 */
export const pgHeld = (id: string, epoch: string) => `held AS (SELECT 1 FROM "Run" WHERE "id" = ${id} AND ${pgHolds(epoch)} FOR SHARE)`;

/**
 * Inside a transaction: goes on while the run holds `epoch` (on PostgreSQL the row stays locked
 * until the commit, so a take waits for it; SQLite's write transaction excludes it already), else
 * throws RunLeaseLost, which rolls the transaction back.
 */
export async function holdEpoch(sql: RawSql, tx: Tx, runId: string, epoch: HeldEpoch): Promise<void> {
  if (!fenced(epoch)) return;
  const rows = await sql.query(sql.engine === "postgresql" ? `${HELD_SQL} FOR SHARE` : HELD_SQL, [runId, epoch], tx);
  if (rows.length === 0) throw new RunLeaseLost(runId);
}
