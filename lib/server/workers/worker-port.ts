import type { ChildToParent, ParentToChild } from "../../protocol/ipc";
import type { WorkerPoolHealth } from "./worker-pool";

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /**
   * The run whose stop grace ran out and had the worker killed (with every run it hosted). The
   * other runs it hosted lost their worker through no fault of their own.
   */
  killedFor?: string;
}

/** What the run supervisor needs of one worker process (the real AgentWorker, or a fake in tests). */
export interface WorkerHandle {
  readonly pid: number | undefined;
  readonly alive: boolean;
  readonly exitInfo: WorkerExit | null;
  /** Sends a validated message; false when the worker is gone. */
  send(message: ParentToChild): boolean;
  /** Kills the process; `forRunId` names the run it is killed for (its exit carries it as `killedFor`). */
  kill(signal?: NodeJS.Signals, forRunId?: string): void;
  on(event: "message", listener: (message: ChildToParent) => void): unknown;
  on(event: "exit", listener: (exit: WorkerExit) => void): unknown;
  off(event: "message", listener: (message: ChildToParent) => void): unknown;
  off(event: "exit", listener: (exit: WorkerExit) => void): unknown;
}

/** What the run manager needs of the worker pool. */
export interface WorkerPoolPort<W extends WorkerHandle = WorkerHandle> {
  /** A ready worker with room for one more run; rejects when no worker can be started (the reason in the error). */
  acquire(): Promise<W>;
  /** One run acquired with `acquire` left the worker (call once per acquire). */
  release(worker: W): void;
  /** Callers waiting for room in a worker now (every worker is at capacity). */
  readonly queued: number;
  readonly size: number;
  /** `pressure`: an acquire had to queue because every worker is at capacity and no more may start. */
  on(event: "pressure", listener: () => void): unknown;
  off(event: "pressure", listener: () => void): unknown;
  warm(): void;
  health(): WorkerPoolHealth;
  shutdown(): Promise<void>;
}
