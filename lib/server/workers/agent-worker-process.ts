import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { describeZodError } from "../../protocol/errors";
import { ChildToParentSchema, ParentToChildSchema, type ChildToParent, type ParentToChild } from "../../protocol/ipc";
import type { AgentFunctionInfo, FunctionLoadFailure } from "../../protocol/entities";
import type { WorkerExit } from "./worker-port";
import { logWorkerOutput } from "./worker-output";
import { log } from "../log";

/** What a worker loaded from its function folders, as it said when it became ready. */
export interface WorkerCatalogue {
  functions: readonly AgentFunctionInfo[];
  failures: readonly FunctionLoadFailure[];
}

/** How much of a worker's stderr is kept to explain a failed start. */
const STDERR_TAIL_CHARS = 8_192;

/**
 * One agent worker child process, speaking only validated IPC. Its output goes to the server's
 * log (each line with the run it belongs to) and the last few kilobytes of its stderr are kept,
 * so a worker that dies at start-up can say why.
 */
export class AgentWorker extends EventEmitter<{ message: [ChildToParent]; exit: [WorkerExit]; retiring: [string] }> {
  readonly ready: Promise<void>;
  /** Resolves once the process has exited and its stdio is closed (its stderr tail is complete). */
  readonly closed: Promise<void>;
  isReady = false;
  /** The functions it can run (set when it is ready). */
  catalogue: WorkerCatalogue = { functions: [], failures: [] };
  /** The worker asked not to be reused (it may be unsound after an uncaught error). */
  retiring = false;
  exitInfo: WorkerExit | null = null;
  /** Why the start failed when the worker itself did not say (it hung). */
  startTimeout: string | null = null;
  /** Killed (its exit may not have arrived yet): it takes no new runs. */
  killing = false;
  /** The run whose stop grace ran out and had this worker killed, if that is why it was killed. */
  killedFor: string | null = null;
  /** The last few kilobytes the worker wrote to stderr. */
  stderrTail = "";
  private exited = false;

  constructor(
    private readonly child: ChildProcess,
    readyTimeoutMs: number,
  ) {
    super();
    const out = log.child({ worker: child.pid });
    if (child.stdout) logWorkerOutput(child.stdout, "stdout", out);
    if (child.stderr) logWorkerOutput(child.stderr, "stderr", out, (text) => (this.stderrTail = `${this.stderrTail}${text}\n`.slice(-STDERR_TAIL_CHARS)));
    this.closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.startTimeout = `did not start within ${readyTimeoutMs} ms`;
        reject(new Error(`Worker ${child.pid} ${this.startTimeout}`));
        this.kill();
      }, readyTimeoutMs);
      this.once("exit", (info) => {
        clearTimeout(timer);
        reject(new Error(`Worker exited during start-up (code ${info.code}, signal ${info.signal})`));
      });
      child.on("message", (raw) => {
        const parsed = ChildToParentSchema.safeParse(raw);
        if (!parsed.success) {
          out.error(`[workers] ignoring an invalid message from worker ${child.pid}: ${describeZodError(parsed.error)}`);
          return;
        }
        const message = parsed.data;
        if (message.type === "worker.ready") {
          clearTimeout(timer);
          this.catalogue = { functions: message.functions, failures: message.failures };
          this.isReady = true;
          resolve();
          return;
        }
        if (message.type === "worker.retiring") {
          this.retiring = true;
          this.emit("retiring", message.reason);
          return;
        }
        this.emit("message", message);
      });
    });
    this.ready.catch(() => {});
    child.on("exit", (code, signal) => this.ended({ code, signal, ...(this.killedFor !== null && { killedFor: this.killedFor }) }));
    child.on("error", (err) => {
      out.error({ err }, `[workers] worker ${child.pid} error`);
      // A fork that never spawned emits no exit: report one, so nobody waits for it.
      if (child.pid === undefined && !this.exited) this.ended({ code: null, signal: null });
    });
  }

  private ended(exit: WorkerExit): void {
    this.exited = true;
    this.exitInfo = exit;
    this.emit("exit", exit);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Sends a validated message; false when the worker is gone. */
  send(message: ParentToChild): boolean {
    if (this.exited || !this.child.connected) return false;
    const checked = ParentToChildSchema.parse(message);
    try {
      this.child.send(checked);
      return true;
    } catch {
      return false;
    }
  }

  /** Kills the process; `forRunId` names the run it is killed for (the first such run is kept, for the exit). */
  kill(signal: NodeJS.Signals = "SIGKILL", forRunId?: string): void {
    if (this.exited) return;
    this.killing = true;
    if (forRunId !== undefined) this.killedFor ??= forRunId;
    this.child.kill(signal);
  }
}
