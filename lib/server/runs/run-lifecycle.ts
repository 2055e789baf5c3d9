import type { Run } from "../../protocol/entities";
import type { SettlementMessage } from "../../protocol/ipc";
import type { ClockTimer } from "../clock";
import type { Closer } from "../questions/question-service";
import type { WorkerHandle } from "../workers/worker-port";
import type { FinalOutcome } from "../store/runs/run-store";

/**
 * The states of a run under its supervisor, each with the data it holds, and the only moves
 * between them. A run that leaves the supervisor is parked (it only waits, and its journal brings
 * it back), finished, or executed by another node (`elsewhere`).
 *
 *   starting ──▶ working ⇄ waiting ──▶ parking ──▶ parked
 *      ▲            │          │          │
 *      └── worker lost (replay in a new worker)
 *   working, waiting, parking ──▶ stopping ──▶ finished;  any live state ──▶ finished (the run ended itself)
 *   any state but parked ──▶ elsewhere: another node holds the run's lease (found at the load, or by a write it fenced)
 */
export type RunState =
  /**
   * Waiting for a worker, or for the worker to take the run; `missed`: settlements its journal read has, unless another node executes it;
   * `fresh`: the run as it was just stored, until its first load (which then needs no reads and counts no attempt).
   */
  | { kind: "starting"; missed: SettlementMessage[]; fresh?: Run }
  | { kind: "working"; worker: WorkerLink }
  /** `since`: when it began to wait (the oldest waiting run is parked first); `park`: the timer that lets go of its worker. */
  | { kind: "waiting"; worker: WorkerLink; since: number; park?: ClockTimer }
  /** The worker was asked to let go of the run; it answers parked or busy. */
  | { kind: "parking"; worker: WorkerLink }
  /** The worker was told to cancel; the run ends when it answers, exits, or its grace runs out. */
  | { kind: "stopping"; worker: WorkerLink; intent: StopIntent; grace?: ClockTimer }
  /** Its end is decided and being recorded (again after a failed write); null: it had ended before this supervisor loaded it. */
  | { kind: "finished"; record: EndRecord | null }
  | { kind: "parked" }
  | { kind: "elsewhere" };

export type RunStateKind = RunState["kind"];
export type StateOf<K extends RunStateKind> = Extract<RunState, { kind: K }>;

/** The worker a run is in, as its supervisor listens to it. */
export interface WorkerLink {
  readonly handle: WorkerHandle;
  /** The worker said the run left it (finished or parked), though the supervisor's chain may not have handled it yet. */
  left: boolean;
  /** Times the worker's answer to run.start (its first question, message or end). */
  firstReply?: () => void;
}

export interface StopIntent {
  status: "cancelled" | "failed";
  reason: string;
  byStop: boolean;
}

export interface EndHow {
  by: Closer;
  byStop?: boolean;
  questionStatus?: "cancelled" | "expired";
}

/** A decided end on its way to the database. */
export interface EndRecord {
  outcome: FinalOutcome;
  how: EndHow;
  /** The final state's write: null until it ran, then whether this run's update decided it. */
  written: boolean | null;
  announced: boolean;
  /** Active time stopped while the run ended, not stored yet. */
  unsavedActiveMs: number;
}

export const TRANSITIONS: Readonly<Record<RunStateKind, readonly RunStateKind[]>> = {
  // a stop ends a starting run at once: no worker has it to cancel
  starting: ["working", "finished", "elsewhere"],
  working: ["waiting", "stopping", "finished", "starting", "elsewhere"],
  waiting: ["working", "parking", "stopping", "finished", "parked", "starting", "elsewhere"],
  parking: ["working", "parked", "starting", "stopping", "finished", "elsewhere"],
  stopping: ["finished", "elsewhere"],
  // its end's write found that another node took the run over: that node decides the end
  finished: ["elsewhere"],
  parked: [],
  elsewhere: [],
};

export const RUN_STATES = Object.keys(TRANSITIONS) as RunStateKind[];

export function canMove(from: RunStateKind, to: RunStateKind): boolean {
  return TRANSITIONS[from].includes(to);
}

export class IllegalTransition extends Error {
  constructor(
    readonly runId: string,
    readonly from: RunStateKind,
    readonly to: RunStateKind,
  ) {
    super(`Run ${runId} cannot move from ${from} to ${to}.`);
    this.name = "IllegalTransition";
  }
}

/** The state a run moves to, once the table allows the move. */
export function checkMove<S extends RunState>(runId: string, from: RunState, to: S): S {
  if (!canMove(from.kind, to.kind)) throw new IllegalTransition(runId, from.kind, to.kind);
  return to;
}

export type WorkerState = Extract<RunState, { worker: WorkerLink }>;

export const holdsWorker = (state: RunState): state is WorkerState => "worker" in state;

/** The run has left this supervisor: parked, or executed by another node. */
export const isGone = (state: RunState): boolean => state.kind === "parked" || state.kind === "elsewhere";
