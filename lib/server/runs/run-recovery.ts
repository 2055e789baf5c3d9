import type { RunLeases } from "../cluster/run-leases";
import type { RunStore } from "../store/runs/run-store";
import type { LiveRuns } from "./live-runs";
import type { RunServiceDeps } from "./run-service-deps";

/** Resumes runs by replaying their journals: after a restart, and runs another node left. */
export interface RunRecovery {
  /** At start-up: pending questions get their expiry timers again; runs that were working resume by replay, waiting runs stay parked unless what they waited for has arrived. */
  recoverAfterRestart(): Promise<{ resumed: number; parked: number; questions: number }>;
  /** Runs whose node died (their lease lapsed), or that were woken and then left by a dying node: taken over by replay. */
  takeOver(): Promise<void>;
}

export interface RunRecoveryDeps {
  store: RunStore;
  leases: RunLeases;
  live: LiveRuns;
  questions: RunServiceDeps["questions"];
  metrics: RunServiceDeps["metrics"];
}

export function createRunRecovery({ store, leases, live, questions, metrics }: RunRecoveryDeps): RunRecovery {
  return {
    async recoverAfterRestart() {
      await questions.rescheduleExpiries();
      const active = await store.listActive();
      let resumed = 0;
      for (const run of active) {
        if (run.status === "running" || !(await store.isBlocked(run.id))) {
          resumed++;
          live.activate(run.id);
        }
      }
      return { resumed, parked: active.length - resumed, questions: (await questions.listPending()).length };
    },
    async takeOver() {
      for (const { id, lapsed } of await leases.orphans()) {
        if (live.closed || live.has(id)) continue;
        // Woken while parked, but a child it calls is still active: it only waits, and stays parked.
        if (!lapsed && (await store.isBlocked(id))) continue;
        metrics?.runTakenOver?.();
        live.activate(id);
      }
    },
  };
}
