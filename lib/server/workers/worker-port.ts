import type { ChildToParent, ParentToChild } from "../../protocol/ipc";
import type { WorkerPoolHealth } from "./worker-pool";

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What the run supervisor needs of one worker process (the real AgentWorker, or a fake in tests). */
export interface WorkerHandle {
  readonly pid: number | undefined;
  readonly alive: boolean;
  readonly exitInfo: WorkerExit | null;
  /** Sends a validated message; false when the worker is gone. */
  send(message: ParentToChild): boolean;
  kill(signal?: NodeJS.Signals): void;
  on(event: "message", listener: (message: ChildToParent) => void): unknown;
  on(event: "exit", listener: (exit: WorkerExit) => void): unknown;
  off(event: "message", listener: (message: ChildToParent) => void): unknown;
  off(event: "exit", listener: (exit: WorkerExit) => void): unknown;
}

/** What the run manager needs of the worker pool. */
export interface WorkerPoolPort<W extends WorkerHandle = WorkerHandle> {
  /** A ready worker; rejects when no worker can be started (the reason in the error). */
  acquire(): Promise<W>;
  release(worker: W): void;
  /** Callers waiting for a worker now. */
  readonly queued: number;
  readonly size: number;
  /** `pressure`: an acquire had to queue because every worker is taken. */
  on(event: "pressure", listener: () => void): unknown;
  off(event: "pressure", listener: () => void): unknown;
  warm(): void;
  health(): WorkerPoolHealth;
  shutdown(): Promise<void>;
}
