import type { Run } from "../../protocol/entities";
import type { SettlementMessage } from "../../protocol/ipc";
import type { ClusterMessage } from "../../protocol/cluster";
import type { RunLeases } from "../cluster/run-leases";
import type { RunStore } from "../store/runs/run-store";
import { RunSupervisor, type SupervisorContext } from "./run-supervisor";
import type { RunServiceDeps } from "./run-service-deps";

/** A message for whichever node executes the run, once it is known (an activation found it held elsewhere). */
export type ForOwner = (owner: string) => ClusterMessage;

/** What the supervisors call back for: their child runs and their ends (which stop and notify other runs). */
export type RunHooks = Pick<SupervisorContext, "startChild" | "finished">;

/** The runs this node supervises now: one supervisor per live run. */
export interface LiveRuns {
  /** Set once the service let go of its runs: nothing is activated any more. */
  readonly closed: boolean;
  get(runId: string): RunSupervisor | undefined;
  has(runId: string): boolean;
  values(): IterableIterator<RunSupervisor>;
  readonly size: number;
  /**
   * Starts a run in a worker, or resumes a parked one there by replaying its journal. A no-op for a
   * live run. `fresh`: the run just stored, not read again. `tell`: what to send the node that
   * executes the run, when that is another node.
   */
  activate(runId: string, fresh?: Run, tell?: ForOwner): void;
  /** The run's supervisor; for a parked run, one without a worker, holding the lease `epoch` the caller took. */
  supervise(runId: string, epoch: number | null): RunSupervisor;
  /** Runs queue for a worker: the run that has waited longest lets go of its worker. */
  parkOldestWaiting(): void;
  /** Lets go of every live run without ending it. */
  detachAll(): void;
}

export interface LiveRunsDeps {
  deps: RunServiceDeps;
  store: RunStore;
  leases: RunLeases;
  hooks: RunHooks;
}

/** A settlement that reached this node, for the node that executes its run. */
const settlementFor = (owner: string, s: SettlementMessage): ClusterMessage =>
  s.type === "question.settled" ? { type: "run.deliver", to: owner, runId: s.runId, questionId: s.questionId } : { type: "run.child_ended", to: owner, runId: s.runId, childRunId: s.childRunId };

export function createLiveRuns({ deps, store, leases, hooks }: LiveRunsDeps): LiveRuns {
  const { pool } = deps;
  const live = new Map<string, RunSupervisor>();
  let closed = false;

  const ctx: SupervisorContext = {
    ...deps,
    store,
    leases,
    stopGraceMs: deps.stopGraceMs ?? 3_000,
    parkAfterMs: deps.parkAfterMs ?? 3_000,
    maxWorkerLosses: deps.maxWorkerLosses ?? 3,
    workersWanted: () => pool.queued > 0,
    startChild: (parent, message, epoch) => hooks.startChild(parent, message, epoch),
    left(supervisor) {
      if (live.get(supervisor.runId) === supervisor) live.delete(supervisor.runId);
    },
    finished: (run, byStop) => hooks.finished(run, byStop),
    activate: (runId) => activate(runId),
    metrics: deps.metrics ?? { time: () => () => {} },
  };

  function activate(runId: string, fresh?: Run, tell?: ForOwner): void {
    if (closed || live.has(runId)) return;
    const supervisor = new RunSupervisor(runId, ctx, fresh);
    live.set(runId, supervisor);
    void supervisor.ended.then((end) => {
      if (end.how === "parked") deps.metrics?.runParked();
      else if (end.how === "elsewhere" && end.owner) {
        const owner = end.owner;
        if (tell) deps.cluster?.publish(tell(owner));
        for (const s of end.missed) deps.cluster?.publish(settlementFor(owner, s));
      }
    });
    supervisor.begin();
  }

  return {
    get closed() {
      return closed;
    },
    get: (runId) => live.get(runId),
    has: (runId) => live.has(runId),
    values: () => live.values(),
    get size() {
      return live.size;
    },
    activate,
    supervise(runId, epoch) {
      let supervisor = live.get(runId);
      if (!supervisor) {
        supervisor = new RunSupervisor(runId, ctx, undefined, epoch);
        live.set(runId, supervisor);
      }
      return supervisor;
    },
    parkOldestWaiting() {
      let oldest: RunSupervisor | undefined;
      for (const s of live.values()) {
        if (s.state === "waiting" && (!oldest || s.waitingSince < oldest.waitingSince)) oldest = s;
      }
      oldest?.parkNow();
    },
    detachAll() {
      closed = true;
      for (const supervisor of live.values()) supervisor.detach();
      live.clear();
    },
  };
}
