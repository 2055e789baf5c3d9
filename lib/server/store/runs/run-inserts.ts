import { type Run } from "../../../protocol/entities";
import { AppError } from "../../../protocol/errors";
import type { JsonValue } from "../../../protocol/question";
import { sessionWaitingError, sessionWorkingError } from "../../sessions/session-busy";
import type { RunLeases } from "../../cluster/run-leases";
import { holdEpoch, type HeldEpoch } from "../../cluster/lease-fence";
import { isUniqueViolation } from "../db/client";
import { toRun } from "../db/mappers";
import type { SqlExecutor, SqlTx } from "../sql-executor";
import { firstPending } from "../questions/question-statements";
import { assertSessionLive, runRow, type ChildOf, type NewRun } from "./run-rows";
import * as S from "./run-statements";

/** A child run as its parent's `call` asks for it. */
export type NewChildRun = ChildOf & { childId: string; digest: string; functionName: string; input: JsonValue };

/** New runs: top-level ones with what belongs to their command, child runs with their parent's journal entry. */
export interface RunInserts {
  /**
   * Inserts a run, counted as started once (it goes to a worker at once); `alongWith` writes what
   * belongs to the same command in the same transaction. `committed` hears of the run as soon as
   * its commit is made, before that is durable (its worker may start meanwhile).
   */
  create(run: NewRun, alongWith?: (tx: SqlTx) => Promise<unknown>, committed?: (run: Run) => void): Promise<Run>;
  /** A child run and the parent's journal entry that waits for it, in one transaction (fenced by the parent's epoch). */
  createChild(child: NewChildRun, epoch?: HeldEpoch): Promise<Run>;
}

export function createRunInserts(exec: SqlExecutor, leases: RunLeases): RunInserts {
  /** Why a session cannot take a new turn: the question it waits on, or the turn still working. */
  async function sessionBusy(sessionId: string, runId: string): Promise<AppError> {
    const [waiting] = await exec.rows(firstPending, { sessionId });
    return waiting ? sessionWaitingError(waiting) : sessionWorkingError(runId);
  }

  return {
    async create(run, alongWith, committed) {
      try {
        return await exec.transaction(
          async (tx) => {
            // Issued together, in this order (on PostgreSQL one round trip): a refusal rolls them all back.
            const [, [row]] = await Promise.all([assertSessionLive(tx, run.sessionId), tx.rows(S.insertRun, runRow(run)), leases.enabled && leases.holdNew(tx, run.id), alongWith?.(tx)]);
            return toRun(row!);
          },
          {
            committed: (created) => {
              leases.holdFresh(created.id);
              committed?.(created);
            },
          },
        );
      } catch (err) {
        const [turn] = run.turnOf && isUniqueViolation(err) ? await exec.rows(S.turnOf, { turnOf: run.turnOf }) : [];
        if (turn) throw await sessionBusy(run.sessionId, turn.id);
        throw err;
      }
    },

    async createChild({ parent, childId, seq, digest, functionName, input, known }, epoch) {
      return exec.transaction(async (tx) => {
        await holdEpoch(tx, parent.id, epoch);
        await assertSessionLive(tx, parent.sessionId);
        const [row] = await tx.rows(
          S.insertRun,
          runRow({ id: childId, sessionId: parent.sessionId, ownerId: parent.ownerId, functionName, input, policy: parent.policy, canAsk: parent.canAsk }, { parent, seq, known }),
        );
        await tx.changes(S.insertJournal, S.journalEntry({ runId: parent.id, seq, kind: "call", name: functionName, digest, childRunId: childId, createdAt: new Date() }));
        return toRun(row!);
      });
    },
  };
}
