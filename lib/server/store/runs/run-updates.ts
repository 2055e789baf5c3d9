import { type Run } from "../../../protocol/entities";
import type { JsonValue } from "../../../protocol/question";
import type { RunLeases } from "../../cluster/run-leases";
import { fenced, noRunOrLeaseLost, type HeldEpoch } from "../../cluster/lease-fence";
import { toRun } from "../db/mappers";
import type { SqlExecutor, SqlTx } from "../sql-executor";
import type { RunFence } from "./run-fence";
import type { FinalOutcome } from "./run-rows";
import * as S from "./run-statements";

/** The writes the node executing a run makes for it: its moves, its end, its progress and its journal's steps. */
export interface RunUpdates {
  /**
   * Ends a run if it is still active: the one conditional update that decides its final state
   * (with the active time it spent last); true for the call that ended it. Fenced by `epoch`: a
   * node that lost the run writes neither. Leased runs without an epoch (no caller in the server
   * ends a run so) are ended only while no other node holds their lease.
   */
  finish(id: string, outcome: FinalOutcome, activeMs?: number, epoch?: HeldEpoch): Promise<boolean>;
  /** In `tx` (a question's): moves a running run to waiting_input, adding `activeMs` it spent; the run as it is now, or null when it was not running. */
  startWaitingIn(tx: SqlTx, id: string, activeMs: number, epoch?: HeldEpoch): Promise<Run | null>;
  /** Moves an active run between running and waiting_input (adding `activeMs` it spent): the run as it is now, or null when it did not move. */
  setWaiting(id: string, waiting: boolean, activeMs?: number, epoch?: HeldEpoch): Promise<Run | null>;
  /** Sets a run's progress line; true when it changed (the same text, or clearing a clear one, writes nothing). */
  setProgress(id: string, progress: string | null, epoch?: HeldEpoch): Promise<boolean>;
  addActiveMs(id: string, ms: number, epoch?: HeldEpoch): Promise<void>;
  /**
   * Counts a worker start (its progress line starts over) and moves an active run to running, or to
   * waiting_input while a question of its own waits: the run as it is now. `committed` hears of it
   * as its commit is made, before that is durable: a power loss may forget the count and the move
   * (a restart replays the run either way), nothing a person decided.
   */
  markAttempt(id: string, epoch?: HeldEpoch, committed?: () => void, options?: { waiting?: boolean }): Promise<Run | null>;
  /** A step's journal entry, fenced by `epoch` (RunLeaseLost, or an error for a run that is gone). */
  recordStep(step: { runId: string; seq: number; name: string; digest: string; output: JsonValue }, epoch?: HeldEpoch): Promise<void>;
}

export function createRunUpdates(exec: SqlExecutor, leases: RunLeases, { epochOf, refusedUnlessHeld }: RunFence): RunUpdates {
  /** The move between running and waiting_input (`waiting`: into it), adding `activeMs` the run spent. */
  const waitingMove = (id: string, waiting: boolean, activeMs: number, epoch: HeldEpoch) => {
    const [from, to] = waiting ? (["running", "waiting_input"] as const) : (["waiting_input", "running"] as const);
    return { id, from, to, activeMs: Math.round(activeMs), at: new Date(), epoch: epochOf(epoch) };
  };

  async function addActiveMs(id: string, ms: number, epoch?: HeldEpoch): Promise<void> {
    const added = await exec.write(S.addActiveMs, { id, ms: Math.round(ms), at: new Date(), epoch: epochOf(epoch) });
    if (added.length === 0) await refusedUnlessHeld(id, epoch);
  }

  return {
    async finish(id, outcome, activeMs = 0, epoch) {
      const ended = await exec.write(S.finish, {
        id,
        status: outcome.status,
        result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
        error: outcome.error ?? null,
        activeMs: Math.round(activeMs),
        at: new Date(),
        epoch: epochOf(epoch),
        node: !fenced(epoch) && leases.enabled ? leases.nodeId : null,
      });
      if (ended.length === 1) {
        leases.forget(id);
        return true;
      }
      await refusedUnlessHeld(id, epoch);
      // It had ended already: the time it spent is kept all the same.
      if (activeMs > 0) await addActiveMs(id, activeMs, epoch);
      return false;
    },

    async startWaitingIn(tx, id, activeMs, epoch) {
      const [moved] = await tx.rows(S.moveWaiting, waitingMove(id, true, activeMs, epoch));
      return moved ? toRun(moved) : null;
    },

    async setWaiting(id, waiting, activeMs = 0, epoch) {
      const [moved] = await exec.write(S.moveWaiting, waitingMove(id, waiting, activeMs, epoch));
      if (moved) return toRun(moved);
      await refusedUnlessHeld(id, epoch);
      // It did not move; the time it spent is kept all the same.
      if (activeMs > 0) await addActiveMs(id, activeMs, epoch);
      return null;
    },

    async setProgress(id, progress, epoch) {
      // Read first: most calls change nothing (a park clears a clear line), and a read takes no write transaction.
      const [current] = await exec.rows(S.progressOf, { id });
      if (current && current.progress === progress) return false;
      const changed = current ? await exec.write(S.setProgress, { id, progress, at: new Date(), epoch: epochOf(epoch) }) : [];
      if (changed.length === 0) await refusedUnlessHeld(id, epoch);
      return changed.length === 1;
    },

    addActiveMs,

    async markAttempt(id, epoch, committed, { waiting = false } = {}) {
      const [marked] = await exec.write(
        S.markAttempt,
        { id, at: new Date(), epoch: epochOf(epoch), status: waiting ? "waiting_input" : "running" },
        { committed: (rows) => rows.length > 0 && committed?.() },
      );
      if (!marked) await refusedUnlessHeld(id, epoch);
      return marked ? toRun(marked) : null;
    },

    async recordStep({ runId, seq, name, digest, output }, epoch) {
      const stored = await exec.write(S.insertStep, { runId, seq, name, digest, output: JSON.stringify(output), at: new Date(), epoch: epochOf(epoch) });
      if (stored.length === 0) throw noRunOrLeaseLost(runId, epoch);
    },
  };
}
