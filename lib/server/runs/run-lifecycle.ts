/**
 * The states of a live run (a run that has, or is getting, a worker), and the only moves between
 * them. A run that is not live is either parked (it only waits, and its journal brings it back) or
 * has ended; the database's run status says which.
 *
 *   starting ──▶ working ⇄ waiting ──▶ parking ──▶ parked
 *      ▲            │          │          │
 *      └── worker lost (replay in a new worker)
 *   any live state ──▶ stopping ──▶ finished;  any live state ──▶ finished (the run ended itself)
 */
export const RUN_STATES = ["starting", "working", "waiting", "parking", "stopping", "finished", "parked"] as const;
export type RunState = (typeof RUN_STATES)[number];

export const TRANSITIONS: Readonly<Record<RunState, readonly RunState[]>> = {
  // waiting for a worker, or for the worker to take the run
  starting: ["working", "stopping", "finished"],
  working: ["waiting", "stopping", "finished", "starting"],
  waiting: ["working", "parking", "stopping", "finished", "parked", "starting"],
  // the worker was asked to let go of the run; it answers parked or busy
  parking: ["working", "waiting", "parked", "starting", "stopping", "finished"],
  // the worker was told to cancel; the run ends when it answers, exits, or its grace runs out
  stopping: ["finished"],
  finished: [],
  parked: [],
};

export function canMove(from: RunState, to: RunState): boolean {
  return TRANSITIONS[from].includes(to);
}

export class IllegalTransition extends Error {
  constructor(
    readonly runId: string,
    readonly from: RunState,
    readonly to: RunState,
  ) {
    super(`Run ${runId} cannot move from ${from} to ${to}.`);
    this.name = "IllegalTransition";
  }
}

/** States in which the run's worker may be holding it. */
export const WORKER_STATES: readonly RunState[] = ["working", "waiting", "parking", "stopping"];
