import type { Db } from "../db/client";
import { noLeases, type RunLeases } from "../../cluster/run-leases";
import { holdEpoch } from "../../cluster/lease-fence";
import { createRunFence, type RunFence } from "./run-fence";
import { createRunLookups, type RunLookups } from "./run-lookups";
import { createRunInserts, type RunInserts } from "./run-inserts";
import { createRunUpdates, type RunUpdates } from "./run-updates";
import { createRunMessageWrites, type RunMessageWrites } from "./run-message-writes";

export type { NewRun, FinalOutcome } from "./run-rows";

/**
 * Every run and journal query of the run domain, as small named functions. The writes that the
 * node executing a run makes for it take the lease epoch it holds (`epoch`): each changes nothing
 * and throws RunLeaseLost once another node has taken the run over. Without leases (one node)
 * the epoch is null and nothing is checked.
 */
export interface RunStore extends RunLookups, RunInserts, RunUpdates, RunMessageWrites {
  /** Inside someone's transaction (a message the run writes): goes on while the run holds `epoch`, else RunLeaseLost. */
  holdEpoch: typeof holdEpoch;
  /** Before a write that cannot be fenced in one statement (closing a run's questions): RunLeaseLost if the run no longer holds `epoch`. */
  assertHeld: RunFence["refusedUnlessHeld"];
}

export function createRunStore(db: Db, leases: RunLeases = noLeases()): RunStore {
  const { exec } = db;
  const fence = createRunFence(exec);
  return {
    ...createRunLookups(exec),
    ...createRunInserts(exec, leases),
    ...createRunUpdates(exec, leases, fence),
    ...createRunMessageWrites(exec),
    holdEpoch,
    assertHeld: fence.refusedUnlessHeld,
  };
}
