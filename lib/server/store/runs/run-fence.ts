import { fenced, RunLeaseLost, type HeldEpoch } from "../../cluster/lease-fence";
import type { SqlExecutor } from "../sql-executor";
import * as S from "./run-statements";

/** The lease epoch a run's writes are fenced by: a write that changed nothing tells a lost lease from a run that did not move. */
export interface RunFence {
  /** The epoch a statement checks (null: not checked). */
  epochOf(epoch: HeldEpoch): number | null;
  /** A write fenced by `epoch` changed nothing: RunLeaseLost when the run no longer holds that epoch (or is gone). */
  refusedUnlessHeld(id: string, epoch: HeldEpoch): Promise<void>;
}

export function createRunFence(exec: SqlExecutor): RunFence {
  return {
    epochOf: (epoch) => (fenced(epoch) ? epoch : null),
    async refusedUnlessHeld(id, epoch) {
      if (!fenced(epoch)) return;
      const [row] = await exec.rows(S.leaseEpochOf, { id });
      if (row?.leaseEpoch !== epoch) throw new RunLeaseLost(id);
    },
  };
}
