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
  isReady = false;
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
          this.isReady = true;
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
  /** Most worker processes alive at once; runs beyond it wait for a free worker. */
  maxWorkers?: number;
  /** Idle workers kept warm for the next run. */
  maxIdle?: number;
  readyTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * Forks agent workers, hands out one per run, keeps a few idle ones warm, and never has more
 * than `maxWorkers` alive: a run that needs a worker beyond that waits its turn (FIFO).
 */
export class WorkerPool {
  private readonly idle: AgentWorker[] = [];
  private readonly all = new Set<AgentWorker>();
  private readonly waiting: Array<{ resolve: (w: AgentWorker) => void; reject: (err: Error) => void }> = [];
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  get size(): number {
    return this.all.size;
  }

  get maxWorkers(): number {
    return Math.max(1, this.options.maxWorkers ?? 4);
  }

  /** Runs waiting for a worker. */
  get queued(): number {
    return this.waiting.length;
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
      this.serveWaiting();
    });
    return worker;
  }

  /** Starts idle workers up to `maxIdle`, so the next run does not wait for a fork. */
  warm(): void {
    while (!this.closed && this.idle.length < (this.options.maxIdle ?? 1) && this.all.size < this.maxWorkers && this.waiting.length === 0) {
      this.idle.push(this.spawn());
    }
  }

  /** A ready worker for one run: an idle one, a new one, or the next one released. */
  async acquire(): Promise<AgentWorker> {
    if (this.closed) throw new Error("The worker pool is shut down");
    let worker = this.idle.find((w) => w.isReady) ?? this.idle[0];
    if (worker) this.idle.splice(this.idle.indexOf(worker), 1);
    if (!worker && this.all.size < this.maxWorkers) worker = this.spawn();
    if (!worker) worker = await new Promise<AgentWorker>((resolve, reject) => this.waiting.push({ resolve, reject }));
    try {
      await worker.ready;
    } catch (err) {
      worker.kill();
      if (this.closed) throw err;
      return this.acquire();
    }
    queueMicrotask(() => this.warm());
    return worker;
  }

  /** Takes a worker back after its run ended or was parked. */
  release(worker: AgentWorker): void {
    if (!worker.alive) return;
    const next = this.waiting.shift();
    if (next) return next.resolve(worker);
    if (this.closed) return worker.kill();
    // A released worker is warm and ready: keep it first, and let the newest spare (perhaps
    // still starting) go instead when there are too many.
    this.idle.unshift(worker);
    while (this.idle.length > (this.options.maxIdle ?? 1)) this.idle.pop()!.kill();
  }

  private serveWaiting(): void {
    while (!this.closed && this.waiting.length > 0 && this.all.size < this.maxWorkers) {
      this.waiting.shift()!.resolve(this.spawn());
    }
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.reject(new Error("The worker pool is shut down"));
    const exits = [...this.all].map((w) => new Promise<void>((resolve) => (w.alive ? w.once("exit", () => resolve()) : resolve())));
    for (const worker of this.all) worker.kill("SIGKILL");
    await Promise.all(exits);
  }
}
