import { fork } from "node:child_process";
import { EventEmitter } from "node:events";
import { AgentWorker, type WorkerExit } from "./agent-worker-process";
import { summarizeStartFailure, WorkerStartError } from "./worker-start-error";

export { AgentWorker, WorkerStartError, type WorkerExit };

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
  /** Fresh workers that may fail to start in a row before `acquire` gives up (default 3). */
  maxStartAttempts?: number;
  /** The wait before trying again after a failed start; it doubles with each failure (default 200 ms). */
  startBackoffMs?: number;
  /** After giving up, `acquire` fails at once for this long, then tries again (default 5 s). */
  startCooldownMs?: number;
}

export interface WorkerPoolHealth {
  /** false from giving up on starting workers until one starts again. */
  ok: boolean;
  size: number;
  idle: number;
  starting: number;
  busy: number;
  queued: number;
  maxWorkers: number;
  startFailures: {
    /** Failed starts since the last worker that started. */
    consecutive: number;
    total: number;
    /** The last failed start: its exit or timeout (the stderr that explains it goes to the log only). */
    lastError: string | null;
    lastAt: string | null;
    /** While cooling down after giving up: when `acquire` tries again. */
    retryAfter: string | null;
  };
}

interface Waiter {
  resolve: (worker: AgentWorker) => void;
  reject: (err: Error) => void;
}

/** How long to wait for a dead worker's stderr to drain before judging its start. */
const STDERR_DRAIN_MS = 1_000;

/**
 * Forks agent workers, hands out one per run, keeps a few idle ones warm, and never has more
 * than `maxWorkers` alive: a run that needs a worker beyond that waits its turn (FIFO) and the
 * pool emits `pressure`. A worker that dies before it is ready is a failed start: the pool tries
 * again with backoff, then gives up (`WorkerStartError` to every waiting caller) and fails fast
 * for a cool-down before it tries again.
 */
export class WorkerPool extends EventEmitter<{ pressure: [] }> {
  /** Workers not handed out: ready ones, and fresh ones still starting. */
  private readonly idle: AgentWorker[] = [];
  private readonly all = new Set<AgentWorker>();
  /** Workers the pool killed itself: their exit is no failed start. */
  private readonly dismissed = new WeakSet<AgentWorker>();
  private readonly waiting: Waiter[] = [];
  private closed = false;

  private consecutiveFailures = 0;
  private totalFailures = 0;
  private failuresInRound = 0;
  /** `reason` (exit or timeout) is for /api/health; `summary` adds the thrown line from stderr, for the log only. */
  private lastFailure: { reason: string; summary: string; at: number } | null = null;
  /** Failed starts whose stderr is still draining: no new start until they are counted. */
  private judging = 0;
  private nextStartAt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private gaveUp: { error: WorkerStartError; until: number } | null = null;
  private canStart = true;

  constructor(private readonly options: WorkerPoolOptions) {
    super();
  }

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

  private get maxIdle(): number {
    return this.options.maxIdle ?? 1;
  }

  private get maxStartAttempts(): number {
    return Math.max(1, this.options.maxStartAttempts ?? 3);
  }

  private spawn(): AgentWorker {
    const child = fork(this.options.script, [], {
      execArgv: this.options.execArgv ?? [],
      env: this.options.env ?? process.env,
      stdio: ["ignore", "inherit", "pipe", "ipc"],
      serialization: "json",
    });
    const worker = new AgentWorker(child, this.options.readyTimeoutMs ?? 15_000);
    this.all.add(worker);
    worker.ready.then(
      () => this.started(),
      () => {},
    );
    worker.on("retiring", () => {
      if (this.idle.includes(worker)) this.dismiss(worker);
    });
    worker.once("exit", (exit) => {
      this.all.delete(worker);
      this.dropIdle(worker);
      if (!worker.isReady && !this.closed && !this.dismissed.has(worker)) void this.startFailed(worker, exit);
      else this.pump();
    });
    return worker;
  }

  private started(): void {
    this.consecutiveFailures = 0;
    this.failuresInRound = 0;
    this.nextStartAt = 0;
    this.gaveUp = null;
    this.canStart = true;
    this.pump();
  }

  private async startFailed(worker: AgentWorker, exit: WorkerExit): Promise<void> {
    this.judging++;
    await Promise.race([worker.closed, new Promise((r) => setTimeout(r, STDERR_DRAIN_MS).unref())]);
    this.judging--;
    if (this.closed) return;
    const how = worker.startTimeout ?? `exited during start-up (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`;
    const tail = worker.stderrTail().trim();
    const detail = `Worker ${worker.pid} ${how}.${tail ? `\nIts stderr ended with:\n${tail}` : " It wrote nothing to stderr."}`;
    this.consecutiveFailures++;
    this.totalFailures++;
    this.lastFailure = { reason: `Worker ${how}.`, summary: summarizeStartFailure(`Worker ${how}`, tail), at: Date.now() };
    if (!this.coolingDown()) {
      this.failuresInRound++;
      console.error(`[workers] a worker failed to start (${this.failuresInRound} of ${this.maxStartAttempts}): ${this.lastFailure.summary}`);
      if (this.failuresInRound >= this.maxStartAttempts) this.giveUp(new WorkerStartError(this.failuresInRound, detail));
      else this.nextStartAt = Date.now() + (this.options.startBackoffMs ?? 200) * 2 ** (this.failuresInRound - 1);
    }
    this.pump();
  }

  private giveUp(error: WorkerStartError): void {
    const until = Date.now() + (this.options.startCooldownMs ?? 5_000);
    console.error(`[workers] giving up on starting workers until ${new Date(until).toISOString()}: ${this.lastFailure?.summary}`);
    this.gaveUp = { error, until };
    this.failuresInRound = 0;
    this.nextStartAt = until;
    this.canStart = false;
    for (const waiter of this.waiting.splice(0)) waiter.reject(error);
  }

  private coolingDown(): boolean {
    return this.gaveUp !== null && Date.now() < this.gaveUp.until;
  }

  private startingCount(): number {
    return this.idle.filter((w) => !w.isReady).length;
  }

  private readyIdle(): AgentWorker | undefined {
    return this.idle.find((w) => w.isReady && !w.retiring);
  }

  /** Hands ready workers to waiting callers, and starts workers for the rest when it may. */
  private pump(): void {
    if (this.closed) return;
    let handed = false;
    for (let worker = this.readyIdle(); worker && this.waiting.length > 0; worker = this.readyIdle()) {
      this.dropIdle(worker);
      this.waiting.shift()!.resolve(worker);
      handed = true;
    }
    if (handed) queueMicrotask(() => this.warm());
    if (this.waiting.length === 0 || this.judging > 0) return;
    const wait = this.nextStartAt - Date.now();
    if (wait > 0) {
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = null;
        this.pump();
      }, wait);
      return;
    }
    // While starts fail, probe with one worker at a time.
    const wanted = this.consecutiveFailures > 0 ? 1 : this.waiting.length;
    while (this.startingCount() < wanted && this.all.size < this.maxWorkers) this.idle.push(this.spawn());
  }

  /** Starts idle workers up to `maxIdle`, so the next run does not wait for a fork. */
  warm(): void {
    if (this.consecutiveFailures > 0) return;
    while (!this.closed && this.idle.length < this.maxIdle && this.all.size < this.maxWorkers && this.waiting.length === 0) {
      this.idle.push(this.spawn());
    }
  }

  /**
   * A ready worker for one run: an idle one, a new one, or the next one released. Rejects with
   * `WorkerStartError` when workers fail to start (at once while cooling down after that).
   */
  acquire(): Promise<AgentWorker> {
    if (this.closed) return Promise.reject(new Error("The worker pool is shut down"));
    if (this.coolingDown() && !this.readyIdle()) return Promise.reject(this.gaveUp!.error);
    return new Promise<AgentWorker>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.pump();
      const queuedForRelease = this.waiting.length > this.startingCount() && this.all.size >= this.maxWorkers;
      if (queuedForRelease) {
        try {
          this.emit("pressure");
        } catch (err) {
          console.error("[workers] a pressure listener failed", err);
        }
      }
    });
  }

  /** Takes a worker back after its run ended or was parked; a retiring worker is let go instead. */
  release(worker: AgentWorker): void {
    if (!worker.alive) return;
    if (this.closed || worker.retiring) return this.dismiss(worker);
    const next = this.waiting.shift();
    if (next) return next.resolve(worker);
    // A released worker is warm and ready: keep it first, and let the newest spare (perhaps
    // still starting) go instead when there are too many.
    this.idle.unshift(worker);
    while (this.idle.length > this.maxIdle) this.dismiss(this.idle.at(-1)!);
  }

  health(): WorkerPoolHealth {
    const starting = [...this.all].filter((w) => !w.isReady).length;
    const idle = this.idle.filter((w) => w.isReady).length;
    return {
      ok: this.canStart,
      size: this.all.size,
      idle,
      starting,
      busy: this.all.size - starting - idle,
      queued: this.waiting.length,
      maxWorkers: this.maxWorkers,
      startFailures: {
        consecutive: this.consecutiveFailures,
        total: this.totalFailures,
        lastError: this.lastFailure?.reason ?? null,
        lastAt: this.lastFailure ? new Date(this.lastFailure.at).toISOString() : null,
        retryAfter: this.coolingDown() ? new Date(this.gaveUp!.until).toISOString() : null,
      },
    };
  }

  private dismiss(worker: AgentWorker): void {
    this.dismissed.add(worker);
    this.dropIdle(worker);
    worker.kill();
  }

  private dropIdle(worker: AgentWorker): void {
    const i = this.idle.indexOf(worker);
    if (i >= 0) this.idle.splice(i, 1);
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    for (const w of this.waiting.splice(0)) w.reject(new Error("The worker pool is shut down"));
    const exits = [...this.all].map((w) => new Promise<void>((resolve) => (w.alive ? w.once("exit", () => resolve()) : resolve())));
    for (const worker of this.all) worker.kill("SIGKILL");
    await Promise.all(exits);
  }
}
