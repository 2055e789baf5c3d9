import { fork } from "node:child_process";
import { EventEmitter } from "node:events";
import { AgentWorker, type WorkerCatalogue } from "./agent-worker-process";
import type { WorkerExit } from "./worker-port";
import { summarizeStartFailure, WorkerStartError } from "./worker-start-error";
import { log } from "../log";

export { WorkerStartError };

/** Runs one worker process hosts at once unless told otherwise (PARLEY_RUNS_PER_WORKER). */
export const DEFAULT_RUNS_PER_WORKER = 32;

export interface WorkerPoolOptions {
  /** The worker entry file: TypeScript in development (run through tsx), compiled JS in production. */
  script: string;
  execArgv?: string[];
  /** Most worker processes alive at once; runs beyond their capacity wait for room. */
  maxWorkers?: number;
  /** Runs one worker process hosts at once (default `DEFAULT_RUNS_PER_WORKER`). */
  runsPerWorker?: number;
  /**
   * Room for runs kept ready beyond those hosted (default 1): a new worker is started only when
   * the usable ones have less room than this, and a worker hosting nothing goes when the others
   * have enough. With one run per worker, this is the number of idle workers kept warm.
   */
  maxIdle?: number;
  /**
   * How long a worker hosting nothing stays before it may go (default 5 s): load that hovers
   * around a worker's capacity reuses the emptied worker instead of forking one each time it
   * crosses (a fork costs the machine a few hundred ms of CPU).
   */
  emptyLingerMs?: number;
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
  /** Ready workers hosting no run. */
  idle: number;
  starting: number;
  /** Workers hosting at least one run (or retiring, or being killed). */
  busy: number;
  /** Runs waiting for room: every worker is at capacity. */
  queued: number;
  maxWorkers: number;
  /** Runs the workers host now. */
  runs: number;
  runsPerWorker: number;
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
 * Forks agent workers and hands out room in them: each worker hosts up to `runsPerWorker` runs at
 * once (agent functions mostly wait), `maxIdle` room for runs is kept ready, and never more than
 * `maxWorkers` are alive. A run that needs room when every worker is at capacity waits
 * its turn (FIFO) and the pool emits `pressure`. Room is taken in the fullest worker that has some,
 * so load gathers in few processes and the others empty out and are let go (see `pick`). A worker
 * that retires (after an uncaught error) or is being killed gets no new runs; a retiring one is
 * let go when its last run leaves. A worker that dies before it is ready is a failed start: the
 * pool tries again with backoff, then gives up (`WorkerStartError` to every waiting caller) and
 * fails fast for a cool-down before it tries again.
 */
export class WorkerPool extends EventEmitter<{ pressure: []; catalogue: [WorkerCatalogue] }> {
  /** Every worker alive (until its exit), in the order they were started. */
  private readonly all = new Set<AgentWorker>();
  /** Runs each worker hosts now (absent: none). */
  private readonly load = new Map<AgentWorker, number>();
  /** When each worker hosting nothing became empty (or was started). */
  private readonly emptySince = new Map<AgentWorker, number>();
  private trimTimer: NodeJS.Timeout | null = null;
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
  /** Workers started before the last `reload`: they finish what they host and take nothing new. */
  private readonly stale = new WeakSet<AgentWorker>();
  /** What the newest generation's workers loaded; null until one of them is ready. */
  private latest: WorkerCatalogue | null = null;
  private catalogueKnown: Promise<void>;
  private knowCatalogue!: () => void;

  constructor(private readonly options: WorkerPoolOptions) {
    super();
    this.catalogueKnown = new Promise<void>((resolve) => (this.knowCatalogue = resolve));
  }

  /** The functions the workers can run: what the newest ready worker loaded (none before one is ready). */
  get catalogue(): WorkerCatalogue {
    return this.latest ?? { functions: [], failures: [] };
  }

  /**
   * Resolves once a worker has said what it loaded, or the pool gave up starting workers (then the
   * catalogue stays empty until one starts). Starts a worker if none is.
   */
  async catalogueReady(): Promise<void> {
    this.warm();
    // Even with no room kept ready (maxIdle 0), one worker has to say what it loaded.
    if (this.latest === null && this.all.size === 0 && !this.closed && !this.coolingDown()) this.spawn();
    await this.catalogueKnown;
  }

  /**
   * New code for new runs: the workers alive now take no new run, finish what they host and go; the
   * next runs (a parked run resuming among them, replaying its journal) get fresh workers, which load
   * the function files again. The catalogue changes when the first fresh worker is ready.
   */
  reload(): void {
    if (this.closed) return;
    for (const worker of this.all) {
      this.stale.add(worker);
      if (this.loadOf(worker) === 0) this.dismiss(worker);
    }
    this.warm();
    this.pump();
  }

  get size(): number {
    return this.all.size;
  }

  get maxWorkers(): number {
    return Math.max(1, this.options.maxWorkers ?? 4);
  }

  get runsPerWorker(): number {
    return Math.max(1, Math.floor(this.options.runsPerWorker ?? DEFAULT_RUNS_PER_WORKER));
  }

  /** Runs waiting for room in a worker (every worker is at capacity). */
  get queued(): number {
    return this.waiting.length;
  }

  private get maxIdle(): number {
    return this.options.maxIdle ?? 1;
  }

  private get maxStartAttempts(): number {
    return Math.max(1, this.options.maxStartAttempts ?? 3);
  }

  private loadOf(worker: AgentWorker): number {
    return this.load.get(worker) ?? 0;
  }

  /** May get new runs (once ready): alive, not retiring, not being killed or let go. */
  private usable(worker: AgentWorker): boolean {
    return worker.alive && !worker.retiring && !worker.killing && !this.dismissed.has(worker) && !this.stale.has(worker);
  }

  private spawn(): AgentWorker {
    const child = fork(this.options.script, [], {
      execArgv: this.options.execArgv ?? [],
      env: this.options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      serialization: "json",
    });
    const worker = new AgentWorker(child, this.options.readyTimeoutMs ?? 15_000);
    // Each run hosted listens for the worker's messages and exit: that many listeners are expected, not a leak.
    worker.setMaxListeners(this.runsPerWorker * 2 + 10);
    this.all.add(worker);
    this.emptySince.set(worker, Date.now());
    worker.ready.then(
      () => {
        if (!this.stale.has(worker)) this.learn(worker.catalogue);
        this.started();
      },
      () => {},
    );
    worker.on("retiring", () => {
      // No new runs; the ones inside finish there, and the last to leave lets it go.
      if (this.loadOf(worker) === 0) this.dismiss(worker);
      else this.pump();
    });
    worker.once("exit", (exit) => {
      this.all.delete(worker);
      this.load.delete(worker);
      this.emptySince.delete(worker);
      if (!worker.isReady && !this.closed && !this.dismissed.has(worker)) void this.startFailed(worker, exit);
      else this.pump();
    });
    return worker;
  }

  private learn(catalogue: WorkerCatalogue): void {
    const changed = JSON.stringify(catalogue) !== JSON.stringify(this.latest);
    this.latest = catalogue;
    this.knowCatalogue();
    if (!changed) return;
    try {
      this.emit("catalogue", catalogue);
    } catch (err) {
      log.error({ err }, "[workers] a catalogue listener failed");
    }
  }

  private started(): void {
    this.consecutiveFailures = 0;
    this.failuresInRound = 0;
    this.nextStartAt = 0;
    this.gaveUp = null;
    this.canStart = true;
    this.pump();
    this.trim();
  }

  private async startFailed(worker: AgentWorker, exit: WorkerExit): Promise<void> {
    this.judging++;
    await Promise.race([worker.closed, new Promise((r) => setTimeout(r, STDERR_DRAIN_MS).unref())]);
    this.judging--;
    if (this.closed) return;
    const how = worker.startTimeout ?? `exited during start-up (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`;
    const tail = worker.stderrTail.trim();
    const detail = `Worker ${worker.pid} ${how}.${tail ? `\nIts stderr ended with:\n${tail}` : " It wrote nothing to stderr."}`;
    this.consecutiveFailures++;
    this.totalFailures++;
    this.lastFailure = { reason: `Worker ${how}.`, summary: summarizeStartFailure(`Worker ${how}`, tail), at: Date.now() };
    if (!this.coolingDown()) {
      this.failuresInRound++;
      log.error(`[workers] a worker failed to start (${this.failuresInRound} of ${this.maxStartAttempts}): ${this.lastFailure.summary}`);
      if (this.failuresInRound >= this.maxStartAttempts) this.giveUp(new WorkerStartError(this.failuresInRound, detail));
      else this.nextStartAt = Date.now() + (this.options.startBackoffMs ?? 200) * 2 ** (this.failuresInRound - 1);
    }
    this.pump();
  }

  private giveUp(error: WorkerStartError): void {
    const until = Date.now() + (this.options.startCooldownMs ?? 5_000);
    log.error(`[workers] giving up on starting workers until ${new Date(until).toISOString()}: ${this.lastFailure?.summary}`);
    this.gaveUp = { error, until };
    this.failuresInRound = 0;
    this.nextStartAt = until;
    this.canStart = false;
    this.knowCatalogue();
    for (const waiter of this.waiting.splice(0)) waiter.reject(error);
  }

  private coolingDown(): boolean {
    return this.gaveUp !== null && Date.now() < this.gaveUp.until;
  }

  /** Workers still starting (none of them hosts a run yet). */
  private startingCount(): number {
    let n = 0;
    for (const w of this.all) if (!w.isReady && this.usable(w)) n++;
    return n;
  }

  /** Runs the usable workers (ready or starting) could still take. */
  private room(): number {
    let room = 0;
    for (const w of this.all) if (this.usable(w)) room += Math.max(0, this.runsPerWorker - this.loadOf(w));
    return room;
  }

  /**
   * The worker the next run goes to: of the ready ones with room, the fullest (the oldest among
   * equals). Packing rather than spreading keeps the process count near what the load needs:
   * emptier workers drain and are let go (beyond `maxIdle`), memory follows the runs, and a fresh
   * worker is forked only when every other is full. A kill on behalf of a run that ignores its stop
   * replays more neighbours this way; they lose nothing (see RunSupervisor.workerLost).
   */
  private pick(): AgentWorker | undefined {
    let best: AgentWorker | undefined;
    for (const w of this.all) {
      if (!w.isReady || !this.usable(w)) continue;
      const load = this.loadOf(w);
      if (load >= this.runsPerWorker) continue;
      if (!best || load > this.loadOf(best)) best = w;
    }
    return best;
  }

  /** Hands room in ready workers to waiting callers, and starts workers for the rest when it may. */
  private pump(): void {
    if (this.closed) return;
    let handed = false;
    for (let worker = this.pick(); worker && this.waiting.length > 0; worker = this.pick()) {
      this.load.set(worker, this.loadOf(worker) + 1);
      this.emptySince.delete(worker);
      this.waiting.shift()!.resolve(worker);
      handed = true;
    }
    // After the runs handed out have gone on: a fork holds the event loop for a few ms.
    if (handed) setImmediate(() => this.warm());
    if (this.waiting.length === 0 || this.judging > 0) return;
    const wait = this.nextStartAt - Date.now();
    if (wait > 0) {
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = null;
        this.pump();
      }, wait);
      return;
    }
    // Enough fresh workers for the callers waiting; while starts fail, probe with one at a time.
    const wanted = this.consecutiveFailures > 0 ? 1 : Math.ceil(this.waiting.length / this.runsPerWorker);
    while (this.startingCount() < wanted && this.all.size < this.maxWorkers) this.spawn();
  }

  /** Starts a worker when the usable ones have less than `maxIdle` room, so the next run does not wait for a fork. */
  warm(): void {
    if (this.consecutiveFailures > 0) return;
    while (!this.closed && this.room() < this.maxIdle && this.all.size < this.maxWorkers && this.waiting.length === 0) {
      this.spawn();
    }
  }

  /**
   * Lets workers hosting nothing go while the others keep `maxIdle` room: those still starting
   * first (newest first), then the newest ready ones; each only once it has been empty for
   * `emptyLingerMs` (it is looked at again then).
   */
  private trim(): void {
    if (this.closed || this.waiting.length > 0) return;
    const spares = [...this.all].filter((w) => this.usable(w) && this.loadOf(w) === 0);
    const order = [...spares.filter((w) => !w.isReady).reverse(), ...spares.filter((w) => w.isReady).reverse()];
    const now = Date.now();
    const linger = this.options.emptyLingerMs ?? 5_000;
    let next = Infinity;
    for (const worker of order) {
      if (this.room() - this.runsPerWorker < this.maxIdle) break;
      const due = (this.emptySince.get(worker) ?? now) + linger;
      if (due > now) next = Math.min(next, due);
      else this.dismiss(worker);
    }
    if (next === Infinity || this.trimTimer) return;
    this.trimTimer = setTimeout(() => {
      this.trimTimer = null;
      this.trim();
    }, next - now);
    this.trimTimer.unref();
  }

  /**
   * Room for one run in a ready worker: in a worker that has some, a new one, or the next room
   * released. Rejects with `WorkerStartError` when workers fail to start (at once while cooling
   * down after that). Each acquire is paired with one `release` of the worker it returned.
   */
  acquire(): Promise<AgentWorker> {
    if (this.closed) return Promise.reject(new Error("The worker pool is shut down"));
    if (this.coolingDown() && !this.pick()) return Promise.reject(this.gaveUp!.error);
    return new Promise<AgentWorker>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.pump();
      const atCapacity = this.waiting.length > this.startingCount() * this.runsPerWorker && this.all.size >= this.maxWorkers;
      if (atCapacity) {
        try {
          this.emit("pressure");
        } catch (err) {
          log.error({ err }, "[workers] a pressure listener failed");
        }
      }
    });
  }

  /**
   * One run left the worker (it ended, was parked, or never started there). Its room goes to the
   * next caller waiting; a worker left with no run stays while its room is needed for `maxIdle`
   * (see `trim`), and a retiring (or killed) one is let go once its last run has left.
   */
  release(worker: AgentWorker): void {
    if (!this.all.has(worker)) return;
    const load = this.loadOf(worker) - 1;
    if (load > 0) this.load.set(worker, load);
    else {
      this.load.delete(worker);
      this.emptySince.set(worker, Date.now());
    }
    if (!worker.alive) return;
    if (this.closed || !this.usable(worker)) {
      if (load <= 0) this.dismiss(worker);
      return;
    }
    this.pump();
    this.trim();
  }

  health(): WorkerPoolHealth {
    let starting = 0;
    let idle = 0;
    let runs = 0;
    for (const w of this.all) {
      const load = this.loadOf(w);
      runs += load;
      if (!w.isReady) starting++;
      else if (load === 0 && this.usable(w)) idle++;
    }
    return {
      ok: this.canStart,
      size: this.all.size,
      idle,
      starting,
      busy: this.all.size - starting - idle,
      queued: this.waiting.length,
      maxWorkers: this.maxWorkers,
      runs,
      runsPerWorker: this.runsPerWorker,
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
    worker.kill();
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    this.knowCatalogue();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.trimTimer) clearTimeout(this.trimTimer);
    for (const w of this.waiting.splice(0)) w.reject(new Error("The worker pool is shut down"));
    const exits = [...this.all].map((w) => new Promise<void>((resolve) => (w.alive ? w.once("exit", () => resolve()) : resolve())));
    for (const worker of this.all) worker.kill("SIGKILL");
    await Promise.all(exits);
  }
}
