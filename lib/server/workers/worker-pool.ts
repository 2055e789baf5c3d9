import { fork, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { describeZodError } from "../../protocol/errors";
import { ChildToParentSchema, ParentToChildSchema, type ChildToParent, type ParentToChild } from "../../protocol/ipc";

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One agent worker child process, speaking only validated IPC. */
export class AgentWorker extends EventEmitter<{ message: [ChildToParent]; exit: [WorkerExit] }> {
  readonly ready: Promise<void>;
  private exited = false;
  exitInfo: WorkerExit | null = null;

  constructor(private readonly child: ChildProcess, readyTimeoutMs: number) {
    super();
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`Worker ${child.pid} did not start within ${readyTimeoutMs} ms`));
        this.kill();
      }, readyTimeoutMs);
      this.once("exit", (info) => {
        clearTimeout(timer);
        reject(new Error(`Worker exited during start-up (code ${info.code}, signal ${info.signal})`));
      });
      child.on("message", (raw) => {
        const parsed = ChildToParentSchema.safeParse(raw);
        if (!parsed.success) {
          console.error(`[workers] ignoring an invalid message from worker ${child.pid}: ${describeZodError(parsed.error)}`);
          return;
        }
        if (parsed.data.type === "worker.ready") {
          clearTimeout(timer);
          resolve();
          return;
        }
        this.emit("message", parsed.data);
      });
    });
    this.ready.catch(() => {});
    child.on("exit", (code, signal) => {
      this.exited = true;
      this.exitInfo = { code, signal };
      this.emit("exit", this.exitInfo);
    });
    child.on("error", (err) => console.error(`[workers] worker ${child.pid} error`, err));
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

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (!this.exited) this.child.kill(signal);
  }
}

export interface WorkerPoolOptions {
  /** The worker entry file: TypeScript in development (run through tsx), compiled JS in production. */
  script: string;
  execArgv?: string[];
  /** Idle workers kept warm for the next run. */
  maxIdle?: number;
  readyTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** Forks agent workers, hands out one per run, and keeps a few idle ones warm. */
export class WorkerPool {
  private readonly idle: AgentWorker[] = [];
  private readonly all = new Set<AgentWorker>();
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  get size(): number {
    return this.all.size;
  }

  private spawn(): AgentWorker {
    const child = fork(this.options.script, [], {
      execArgv: this.options.execArgv ?? [],
      env: this.options.env ?? process.env,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "json",
    });
    const worker = new AgentWorker(child, this.options.readyTimeoutMs ?? 15_000);
    this.all.add(worker);
    worker.once("exit", () => {
      this.all.delete(worker);
      const i = this.idle.indexOf(worker);
      if (i >= 0) this.idle.splice(i, 1);
    });
    return worker;
  }

  /** Starts idle workers up to `maxIdle`, so the first run does not wait for a fork. */
  warm(): void {
    while (!this.closed && this.idle.length < (this.options.maxIdle ?? 1)) {
      const worker = this.spawn();
      this.idle.push(worker);
    }
  }

  async acquire(): Promise<AgentWorker> {
    if (this.closed) throw new Error("The worker pool is shut down");
    const worker = this.idle.shift() ?? this.spawn();
    await worker.ready;
    queueMicrotask(() => this.warm());
    return worker;
  }

  /** Returns a worker after its run ended; extra idle workers are stopped. */
  release(worker: AgentWorker): void {
    if (!worker.alive) return;
    if (this.closed || this.idle.length >= (this.options.maxIdle ?? 1)) {
      worker.kill("SIGTERM");
      return;
    }
    this.idle.push(worker);
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    const exits = [...this.all].map(
      (w) => new Promise<void>((resolve) => (w.alive ? w.once("exit", () => resolve()) : resolve())),
    );
    for (const worker of this.all) worker.kill("SIGKILL");
    await Promise.all(exits);
  }
}
