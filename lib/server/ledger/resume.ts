import { buildReceipt, type ResumeReceipt } from "../../protocol/commands";
import { ACTIVE_RUN_STATUSES, type Run } from "../../protocol/entities";
import type { CommandService } from "./command-ledger";

export interface ResumeDeps {
  commands: Pick<CommandService, "run">;
  runs: {
    getRun(args: { id: string }): Promise<Run>;
    /** Loads an active run into a worker (a no-op when it is in one or on its way). */
    activate(runId: string): unknown;
  };
}

/** The resume command: loads an active run that is in no worker (parked, or after a failed resume) into a worker. */
export function createResume({ commands, runs }: ResumeDeps) {
  return function resume({ runId, commandId }: { runId: string; commandId?: string }): Promise<ResumeReceipt> {
    return commands.run<ResumeReceipt>({ commandId, kind: "resume", payload: { runId } }, async ({ commandId: cid, commit }) => {
      const run = await runs.getRun({ id: runId });
      const applies = ACTIVE_RUN_STATUSES.includes(run.status);
      const receipt = buildReceipt<ResumeReceipt>({ commandId: cid, kind: "resume", apply_state: applies ? "applied" : "target_closed", runId });
      // Recorded first: a twin that loses the race must not activate the run a second time.
      await commit(receipt);
      if (applies) void runs.activate(runId);
      return receipt;
    });
  };
}
