import { AppError } from "../../protocol/errors";
import { stoppedBy } from "../../protocol/audit";
import { ACTIVE_RUN_STATUSES, type Run } from "../../protocol/entities";
import { buildStopReceipt, commandPayload, type StopOutcome, type StopReceipt, type StoppedRun } from "../../protocol/commands";
import type { RunLeases } from "../cluster/run-leases";
import type { RunStore } from "../store/runs/run-store";
import type { LiveRuns } from "./live-runs";
import type { RunEnd } from "./run-supervisor";
import type { RunServiceDeps } from "./run-service-deps";

/** How a stop ended: the run is as it is after it. */
export interface StopResult {
  run: Run;
  outcome: Exclude<StopOutcome, "queued">;
}

export interface StopRunRequest {
  id: string;
  commandId?: string;
  by?: Parameters<typeof stoppedBy>[0];
}

/** Stops runs, on this node or on the node that executes them. */
export interface RunStopping {
  /**
   * Stops a run; resolves once it and its child runs have ended. The run is told first, so a child's
   * end cannot reach it as a failed call before it knows it is stopping; its children follow it.
   */
  stopNow(id: string, reason?: string): Promise<StopResult>;
  /** Stops a run (idempotent by commandId); the receipt says whether the stop or the run's own end came first. */
  stopRun(request: StopRunRequest): Promise<StoppedRun>;
  /**
   * Stops every active run of a session (its delete) and resolves once all have ended; their
   * questions are cancelled on the way (retracted in every tab). Runs a child start slips in
   * meanwhile are stopped by the next round; the session's mark keeps new ones out.
   */
  stopSessionRuns(request: { sessionId: string; reason: string }): Promise<void>;
}

export interface RunStoppingDeps {
  store: RunStore;
  leases: RunLeases;
  live: LiveRuns;
  commands: RunServiceDeps["commands"];
  cluster: RunServiceDeps["cluster"];
  stopGraceMs?: number;
}

export function createRunStopping({ store, leases, live, commands, cluster, stopGraceMs }: RunStoppingDeps): RunStopping {
  async function stopNow(id: string, reason = "The run was stopped."): Promise<StopResult> {
    const current = await store.get(id);
    if (!ACTIVE_RUN_STATUSES.includes(current.status)) return { run: current, outcome: "already_ended" };
    let end: RunEnd;
    do {
      let epoch: number | null = null;
      if (!live.has(id)) {
        // Another node executes it: that node stops it.
        const took = await leases.take(id);
        if (!took.ok) return stopElsewhere(id, took.owner, reason);
        epoch = took.epoch;
      }
      // A parked run: a supervisor without a worker decides its end (holding the lease just taken), so no activation races it.
      end = await live.supervise(id, epoch).stop(reason);
    } while ((end.how === "parked" || end.how === "elsewhere") && !live.closed);
    const run = await store.get(id);
    return { run, outcome: end.how === "finished" && end.byStop ? "stopped" : "finished_first" };
  }

  /**
   * Stops a run another node executes: that node is told (again each second, in case a message was
   * lost), and the run's end is awaited in the database. If that node dies meanwhile, its lease
   * lapses and this node takes the run and stops it itself.
   */
  async function stopElsewhere(id: string, owner: string, reason: string): Promise<StopResult> {
    // Wall time: this waits on another process, whatever clock the run's timers use.
    const deadline = Date.now() + leases.leaseMs + (stopGraceMs ?? 3_000) + 5_000;
    let told = -Infinity;
    while (Date.now() < deadline && !live.closed) {
      const run = await store.get(id);
      if (!ACTIVE_RUN_STATUSES.includes(run.status)) return { run, outcome: run.status === "cancelled" ? "stopped" : "finished_first" };
      if (Date.now() - told >= 1_000) {
        const took = await leases.take(id);
        if (took.ok) return stopNow(id, reason);
        cluster?.publish({ type: "run.stop", to: took.owner, runId: id, reason });
        told = Date.now();
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new AppError("unavailable", `Run ${id} is executed by another server (${owner}) that did not stop it in time; try again.`);
  }

  return {
    stopNow,
    async stopRun({ id, commandId, by = "rest" }) {
      await store.get(id);
      const receipt = await commands.run<StopReceipt>({ commandId, kind: "stop_run", payload: commandPayload("stop_run", { runId: id }) }, async ({ commandId: cid, commit }) => {
        const { outcome } = await stopNow(id, stoppedBy(by));
        const r = buildStopReceipt({ commandId: cid, runId: id, outcome });
        await commit(r);
        return r;
      });
      return { ...(await store.get(id)), receipt };
    },
    async stopSessionRuns({ sessionId, reason }) {
      for (let round = 0; round < 10; round++) {
        const active = await store.listActiveInSession(sessionId);
        if (active.length === 0) {
          // Ended in the database, a run's supervisor may still be finishing (its announcement, its
          // end's messages): what follows (deleting the chat) waits until it has let go.
          await Promise.all([...live.values()].filter((s) => s.sessionId === sessionId && s.finishing).map((s) => s.ended));
          return;
        }
        const ids = new Set(active.map((r) => r.id));
        // The roots of what is active: stopping a run stops its children after it.
        const roots = active.filter((r) => !r.parentRunId || !ids.has(r.parentRunId));
        await Promise.all(roots.map((r) => stopNow(r.id, reason)));
      }
    },
  };
}
