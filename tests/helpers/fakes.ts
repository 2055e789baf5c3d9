import { EventEmitter } from "node:events";
import type { ChildToParent, ParentToChild } from "../../lib/protocol/ipc";
import type { Clock, ClockTimer } from "../../lib/server/clock";
import type { AccessOptions } from "../../lib/server/access/access";
import { createParley, type Parley } from "../../lib/server/app";
import { createDb } from "../../lib/server/store/db/client";
import { openFixtureDb } from "./fixture-db";
import { createTestDatabase } from "./test-db";
import type { WorkerExit, WorkerHandle, WorkerPoolPort } from "../../lib/server/workers/worker-port";
import type { WorkerPoolHealth } from "../../lib/server/workers/worker-pool";

/** A clock whose time moves only when a test says so. */
export class ManualClock implements Clock {
  private time = 1_000_000;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private nextId = 1;

  now = () => this.time;

  setTimeout(fn: () => void, ms: number): ClockTimer {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, fn });
    return { id };
  }

  clearTimeout(timer: ClockTimer | undefined): void {
    if (timer && typeof timer === "object" && "id" in timer) this.timers.delete((timer as { id: number }).id);
  }

  /** Moves time forward, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].fn();
    }
    this.time = until;
  }

  get pending(): number {
    return this.timers.size;
  }
}

/** A node's clock that runs `offsetMs` ahead of `clock` (behind when negative); its timers are `clock`'s. */
export function skewedClock(clock: Clock, offsetMs: number): Clock {
  return { now: () => clock.now() + offsetMs, setTimeout: (fn, ms) => clock.setTimeout(fn, ms), clearTimeout: (timer) => clock.clearTimeout(timer) };
}

/** A worker process that only records what it is sent; the test speaks for it. */
export class FakeWorker extends EventEmitter implements WorkerHandle {
  static nextPid = 100;
  readonly pid = FakeWorker.nextPid++;
  readonly sent: ParentToChild[] = [];
  exitInfo: WorkerExit | null = null;
  killed: NodeJS.Signals[] = [];

  get alive() {
    return this.exitInfo === null;
  }

  send(message: ParentToChild): boolean {
    if (!this.alive) return false;
    this.sent.push(message);
    return true;
  }

  kill(signal: NodeJS.Signals = "SIGKILL", forRunId?: string): void {
    this.killed.push(signal);
    queueMicrotask(() => this.exit({ code: null, signal, ...(forRunId !== undefined && { killedFor: forRunId }) }));
  }

  /** The worker says something to the server. */
  say(message: ChildToParent): void {
    this.emit("message", message);
  }

  exit(info: WorkerExit = { code: null, signal: "SIGKILL" }): void {
    if (!this.alive) return;
    this.exitInfo = info;
    this.emit("exit", info);
  }

  sentOf<T extends ParentToChild["type"]>(type: T): Array<Extract<ParentToChild, { type: T }>> {
    return this.sent.filter((m) => m.type === type) as never;
  }
}

/** A pool of fake workers with a fixed size; acquire queues (and signals pressure) when all are taken. */
export class FakePool extends EventEmitter<{ pressure: [] }> implements WorkerPoolPort<FakeWorker> {
  readonly created: FakeWorker[] = [];
  readonly released: FakeWorker[] = [];
  private idle: FakeWorker[] = [];
  private waiting: Array<(w: FakeWorker) => void> = [];
  private busy = new Set<FakeWorker>();
  failNext: Error | null = null;

  constructor(private readonly maxWorkers = 4) {
    super();
  }

  get queued() {
    return this.waiting.length;
  }

  get size() {
    return this.busy.size + this.idle.length;
  }

  async acquire(): Promise<FakeWorker> {
    if (this.failNext) {
      const err = this.failNext;
      this.failNext = null;
      throw err;
    }
    const reused = this.idle.shift();
    if (reused) return this.take(reused);
    if (this.busy.size < this.maxWorkers) {
      const worker = new FakeWorker();
      this.created.push(worker);
      worker.once("exit", () => {
        this.busy.delete(worker);
        this.serve();
      });
      return this.take(worker);
    }
    const queued = new Promise<FakeWorker>((resolve) => this.waiting.push(resolve));
    this.emit("pressure");
    return queued;
  }

  private take(worker: FakeWorker): FakeWorker {
    this.busy.add(worker);
    return worker;
  }

  release(worker: FakeWorker): void {
    this.released.push(worker);
    this.busy.delete(worker);
    if (!worker.alive) return this.serve();
    const next = this.waiting.shift();
    if (next) return next(this.take(worker));
    this.idle.push(worker);
  }

  private serve(): void {
    while (this.waiting.length > 0 && this.busy.size < this.maxWorkers) {
      const worker = new FakeWorker();
      this.created.push(worker);
      this.waiting.shift()!(this.take(worker));
    }
  }

  warm(): void {}

  health(): WorkerPoolHealth {
    return {
      ok: true,
      size: this.size,
      idle: this.idle.length,
      starting: 0,
      busy: this.busy.size,
      queued: this.queued,
      maxWorkers: this.maxWorkers,
      runs: this.busy.size,
      runsPerWorker: 1,
      startFailures: { consecutive: 0, total: 0, lastError: null, lastAt: null, retryAfter: null },
    };
  }

  async shutdown(): Promise<void> {}
}

/** Parley on a fresh database (temp SQLite, or PostgreSQL with PARLEY_TEST_PG_URL) with a fake pool and a manual clock: the run lifecycle without processes. */
export async function startFakeParley({
  maxWorkers = 4,
  parkAfterMs = 3_000,
  stopGraceMs = 1_000,
  access,
  runLeaseMs,
  syncWal,
}: { maxWorkers?: number; parkAfterMs?: number; stopGraceMs?: number; access?: AccessOptions; runLeaseMs?: number; syncWal?: () => Promise<void> } = {}) {
  const testDb = await createTestDatabase("parley_fake");
  const db = await createDb(testDb.url, { syncWal });
  const pool = new FakePool(maxWorkers);
  const clock = new ManualClock();
  const functions = ["f", "g", "chat"].map((name) => ({ name, description: name }));
  const parley: Parley = await createParley({ db, pool, functions, clock }, { parkAfterMs, stopGraceMs, inboxPollMs: 60_000, access, runLeaseMs });
  const fixture = await openFixtureDb(testDb.url);
  return {
    parley,
    db,
    /** A Prisma client on the same database, for the test's own rows and assertions. */
    fixture,
    pool,
    clock,
    async close() {
      await parley.close();
      await fixture.$disconnect();
      await testDb.drop();
    },
  };
}

/** Polls until `check` holds (the supervisor's work is asynchronous: database writes, its event chain). */
export async function until<T>(check: () => Promise<T | false | undefined | null> | T | false | undefined | null, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false && value !== null) return value;
    if (Date.now() > deadline) throw new Error("until: timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}
export type FakeParley = Awaited<ReturnType<typeof startFakeParley>>;
