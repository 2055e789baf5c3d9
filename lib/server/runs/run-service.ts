import { noLeases } from "../cluster/run-leases";
import { createRunStore, type RunStore } from "../store/runs/run-store";
import { log } from "../log";
import { createLiveRuns, type LiveRuns, type RunHooks } from "./live-runs";
import { createRunDelivery, type RunDelivery } from "./run-delivery";
import { createRunHooks } from "./run-hooks";
import { createRunStopping, type RunStopping } from "./run-stopping";
import { createStartRun, type StartRun } from "./run-starting";
import { createRunReading, type RunReading } from "./run-reading";
import { createRunRecovery, type RunRecovery } from "./run-recovery";
import { startRunClusterDuty } from "./run-cluster";
import type { RunServiceDeps } from "./run-service-deps";

export type { RunServiceDeps } from "./run-service-deps";
export type { StartRunRequest } from "./run-starting";

/**
 * Durable runs of agent functions. A run is a database record with a journal; a worker process is
 * lent to it only while it has work to do. Each live run has one supervisor (its state machine);
 * this service starts them, routes answers, child results and stops to them, and parks waiting
 * runs when other runs need their workers.
 */
export interface RunService extends RunReading, Pick<RunStopping, "stopRun" | "stopSessionRuns">, Pick<RunDelivery, "deliverQuestion">, Pick<RunRecovery, "recoverAfterRestart"> {
  store: RunStore;
  startRun: StartRun;
  activate: LiveRuns["activate"];
  /** Lets go of every live run without ending it: the next start-up (or another node, at once) resumes them from their journals. */
  detachAll(): void;
  /** After detachAll and once the workers are gone: the leases held lapse now, so other nodes take those runs over at once. */
  handOver(): Promise<void>;
}

export function createRunService(deps: RunServiceDeps): RunService {
  const { db, events, sessions, questions, commands, pool, hasFunction, metrics, cluster } = deps;
  const leases = deps.leases ?? noLeases();
  const store = createRunStore(db, leases);
  // The supervisors' hooks stop and notify other runs, which needs the supervisors: they are bound once all exist.
  const hooks: RunHooks = {
    startChild: (parent, message, epoch) => runHooks.startChild(parent, message, epoch),
    finished: (run, byStop) => runHooks.finished(run, byStop),
  };
  const live = createLiveRuns({ deps, store, leases, hooks });
  const delivery = createRunDelivery({ store, leases, live, cluster });
  const stopping = createRunStopping({ store, leases, live, commands, cluster, stopGraceMs: deps.stopGraceMs });
  const runHooks = createRunHooks({ store, live, delivery, stopping, events, sessions, hasFunction });
  const recovery = createRunRecovery({ store, leases, live, questions, metrics });

  pool.on("pressure", live.parkOldestWaiting);
  const clusterDuty = startRunClusterDuty({ store, leases, live, delivery, stopping, recovery, questions, cluster });

  return {
    store,
    startRun: createStartRun({ store, live, sessions, commands, events, metrics, hasFunction }),
    activate: live.activate,
    deliverQuestion: delivery.deliverQuestion,
    ...createRunReading({ db, questions, store, live }),
    stopRun: stopping.stopRun,
    stopSessionRuns: stopping.stopSessionRuns,
    recoverAfterRestart: recovery.recoverAfterRestart,
    detachAll() {
      clusterDuty.close();
      pool.off("pressure", live.parkOldestWaiting);
      live.detachAll();
    },
    handOver: (): Promise<void> => leases.lapseAll().catch((err) => log.error({ err }, "[runs] could not hand the leases over")),
  };
}
