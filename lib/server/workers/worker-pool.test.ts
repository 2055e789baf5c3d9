import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { settledAtOnce } from "../../../tests/helpers/timing";
import { WorkerPool, WorkerStartError, type WorkerPoolOptions } from "./worker-pool";

const fixture = path.resolve(import.meta.dirname, "../../../tests/fixtures/flaky-worker.mjs");

let dir: string;
let pool: WorkerPool;
const modeFile = () => path.join(dir, "mode");
const setMode = (mode: "throw" | "hang" | "ok") => writeFileSync(modeFile(), mode);
/** When each worker process started, as the fixture logged it. */
const starts = (): number[] => {
  try {
    return readFileSync(path.join(dir, "starts.log"), "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => Number(line.split(" ")[1]));
  } catch {
    return [];
  }
};

function makePool(options: Partial<WorkerPoolOptions> = {}): WorkerPool {
  pool = new WorkerPool({
    script: fixture,
    maxWorkers: 1,
    maxIdle: 1,
    emptyLingerMs: 0,
    startBackoffMs: 50,
    startCooldownMs: 600,
    env: { ...process.env, FIXTURE_LOG: path.join(dir, "starts.log"), FIXTURE_MODE_FILE: modeFile() },
    ...options,
  });
  return pool;
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-pool-"));
});
afterEach(async () => {
  await pool?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe("a worker pool whose workers fail at start-up", () => {
  it("gives up after maxStartAttempts spawns with backoff, rejects every waiting caller with a user-safe WorkerStartError, and says why in its detail and health", async () => {
    setMode("throw");
    makePool({ maxStartAttempts: 3 });
    const first = pool.acquire();
    const queued = pool.acquire();
    const errors = await Promise.allSettled([first, queued]);

    for (const outcome of errors) {
      expect(outcome.status).toBe("rejected");
      const err = (outcome as PromiseRejectedResult).reason;
      expect(err).toBeInstanceOf(WorkerStartError);
      expect(err.message).toBe("No worker process could be started (3 tries).");
      expect(err.detail).toContain("Cannot load agent functions: SECRET_TOKEN=abc123 is not a valid key");
      expect(err.detail).toMatch(/exit code 1/);
    }
    const times = starts();
    expect(times).toHaveLength(3);
    // Exponential backoff between the tries: 50 ms, then 100 ms (at least).
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(50);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(100);

    const health = pool.health();
    expect(health).toMatchObject({ ok: false, size: 0, queued: 0, maxWorkers: 1, startFailures: { consecutive: 3, total: 3 } });
    // Health is served to anyone: the exit, not the worker's stderr (that goes to the log).
    expect(health.startFailures.lastError).toBe("Worker exited during start-up (exit code 1).");
    expect(health.startFailures.lastAt).not.toBeNull();
    expect(health.startFailures.retryAfter).not.toBeNull();
  });

  it("fails fast during the cool-down, then tries again: a fixed agent module works without a restart", async () => {
    setMode("throw");
    makePool({ maxStartAttempts: 2, startCooldownMs: 800 });
    await expect(pool.acquire()).rejects.toBeInstanceOf(WorkerStartError);
    expect(starts()).toHaveLength(2);

    // At once: settled before the event loop's next turn, neither after the cool-down nor after a start.
    const during = pool.acquire();
    expect(await settledAtOnce(during)).toBe(true);
    await expect(during).rejects.toThrow("No worker process could be started (2 tries).");
    expect(starts()).toHaveLength(2);

    setMode("ok");
    await until(() => pool.health().startFailures.retryAfter === null);
    const worker = await pool.acquire();
    expect(worker.isReady).toBe(true);
    expect(starts()).toHaveLength(3);
    expect(pool.health()).toMatchObject({ ok: true, busy: 1, startFailures: { consecutive: 0, total: 2 } });
    pool.release(worker);
  });

  it("counts a worker that never gets ready as a failed start", async () => {
    setMode("hang");
    // Long enough for a loaded machine to boot Node and log the start before the pool gives up on it.
    makePool({ maxStartAttempts: 2, readyTimeoutMs: 1_500, startBackoffMs: 10 });
    const err = await pool.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerStartError);
    expect((err as WorkerStartError).detail).toMatch(/did not start within 1500 ms/);
    expect(starts()).toHaveLength(2);
  });

  it("a warm worker that fails at start-up is not respawned until someone asks for one", async () => {
    setMode("throw");
    makePool();
    pool.warm();
    await until(() => pool.health().startFailures.total === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(starts()).toHaveLength(1);
    expect(pool.size).toBe(0);
  });
});

describe("a worker pool at its limit", () => {
  it("emits pressure when a caller has to queue, and hands the next released worker to it", async () => {
    setMode("ok");
    makePool({ maxWorkers: 1, runsPerWorker: 1 });
    let pressure = 0;
    pool.on("pressure", () => pressure++);
    const worker = await pool.acquire();
    expect(pressure).toBe(0);

    const next = pool.acquire();
    expect(pressure).toBe(1);
    expect(pool.queued).toBe(1);
    expect(pool.health()).toMatchObject({ busy: 1, queued: 1 });
    pool.release(worker);
    expect(await next).toBe(worker);
    expect(pool.queued).toBe(0);
  });

  it("kills a retiring worker on release instead of reusing it", async () => {
    setMode("ok");
    makePool({ maxWorkers: 1, runsPerWorker: 1 });
    const worker = await pool.acquire();
    worker.retiring = true;
    const next = pool.acquire();
    pool.release(worker);
    const replacement = await next;
    expect(replacement).not.toBe(worker);
    expect(worker.alive).toBe(false);
    expect(pool.health().startFailures.total).toBe(0);
  });
});

describe("a worker pool whose workers host several runs", () => {
  it("hands one worker up to runsPerWorker runs, then queues with pressure; a released run's room goes to the next caller", async () => {
    setMode("ok");
    makePool({ maxWorkers: 1, runsPerWorker: 3 });
    let pressure = 0;
    pool.on("pressure", () => pressure++);
    const held = [await pool.acquire(), await pool.acquire(), await pool.acquire()];
    expect(new Set(held).size).toBe(1);
    expect(pressure).toBe(0);
    expect(pool.health()).toMatchObject({ size: 1, idle: 0, busy: 1, runs: 3, runsPerWorker: 3, queued: 0 });

    const fourth = pool.acquire();
    expect(pressure).toBe(1);
    expect(pool.queued).toBe(1);
    pool.release(held[0]!);
    expect(await fourth).toBe(held[0]);
    expect(pool.health()).toMatchObject({ size: 1, runs: 3, queued: 0 });
    expect(starts()).toHaveLength(1);
  });

  it("keeps room for runs, not spare processes: a run goes to the fullest worker with room, a worker starts only when room runs out, an empty one goes while others have room", async () => {
    setMode("ok");
    makePool({ maxWorkers: 3, runsPerWorker: 2, maxIdle: 1 });
    const a = await pool.acquire();
    await new Promise((r) => setTimeout(r, 300));
    // Room for one more run in a's worker: no second process (before, every hand-out forked a spare and every release killed one).
    expect(pool.health()).toMatchObject({ size: 1, runs: 1 });
    expect(await pool.acquire()).toBe(a);
    await until(() => pool.health().idle === 1);
    const c = await pool.acquire();
    expect(c).not.toBe(a);
    await new Promise((r) => setTimeout(r, 300));
    expect(pool.health()).toMatchObject({ size: 2, busy: 2, idle: 0, runs: 3 });
    // Room in a's worker again: the oldest of the fullest gets the next run.
    pool.release(a);
    expect(await pool.acquire()).toBe(a);
    // c's worker empties while a's is full: it stays, as the only room.
    pool.release(c);
    expect(c.alive).toBe(true);
    // Both empty: one goes, the other is the room kept.
    pool.release(a);
    pool.release(a);
    await until(() => pool.health().size === 1);
    expect(starts()).toHaveLength(2);
  });

  it("a worker is idle only with no runs: it stays while a run is inside, and goes beyond maxIdle when the last one leaves", async () => {
    setMode("ok");
    makePool({ maxWorkers: 1, runsPerWorker: 4, maxIdle: 0 });
    const worker = await pool.acquire();
    expect(await pool.acquire()).toBe(worker);
    pool.release(worker);
    expect(worker.alive).toBe(true);
    expect(pool.health()).toMatchObject({ size: 1, idle: 0, busy: 1, runs: 1 });
    pool.release(worker);
    await until(() => !worker.alive);
    expect(pool.health()).toMatchObject({ size: 0, runs: 0, startFailures: { total: 0 } });
  });

  it("spares beyond maxIdle are let go when their runs leave", async () => {
    setMode("ok");
    makePool({ maxWorkers: 3, runsPerWorker: 1, maxIdle: 1 });
    const held = await Promise.all([pool.acquire(), pool.acquire(), pool.acquire()]);
    expect(new Set(held).size).toBe(3);
    for (const w of held) pool.release(w);
    await until(() => pool.size === 1);
    expect(pool.health()).toMatchObject({ size: 1, idle: 1, busy: 0, runs: 0 });
    // The one kept is a released, ready worker: the next run does not wait for a fork.
    expect(held).toContain(await pool.acquire());
  });

  it("a retiring worker keeps its runs until they leave, takes no new one, and is let go after the last", async () => {
    setMode("ok");
    makePool({ maxWorkers: 1, runsPerWorker: 3 });
    let pressure = 0;
    pool.on("pressure", () => pressure++);
    const worker = await pool.acquire();
    expect(await pool.acquire()).toBe(worker);
    worker.retiring = true;
    worker.emit("retiring", "an uncaught exception in run r1");
    expect(worker.alive).toBe(true);

    let next: unknown = null;
    const queued = pool.acquire().then((w) => (next = w));
    expect(pressure).toBe(1);
    pool.release(worker);
    await new Promise((r) => setTimeout(r, 200));
    expect(worker.alive).toBe(true);
    expect(next).toBeNull();
    pool.release(worker);
    await queued;
    expect(next).not.toBe(worker);
    expect(worker.alive).toBe(false);
    expect(pool.health()).toMatchObject({ size: 1, runs: 1, startFailures: { total: 0 } });
  });

  it("a worker killed on behalf of a run takes no new run, and its exit names that run", async () => {
    setMode("ok");
    makePool({ maxWorkers: 2, runsPerWorker: 3, maxIdle: 0 });
    const worker = await pool.acquire();
    const exit = new Promise((resolve) => worker.once("exit", resolve));
    worker.kill("SIGKILL", "run-stubborn");
    const other = await pool.acquire();
    expect(other).not.toBe(worker);
    expect(await exit).toMatchObject({ signal: "SIGKILL", killedFor: "run-stubborn" });
    // Its runs' releases after the exit change nothing.
    pool.release(worker);
    expect(pool.health()).toMatchObject({ size: 1, runs: 1, startFailures: { total: 0 } });
  });
});

describe("a worker that empties", () => {
  it("lingers for emptyLingerMs before it goes, and a run that comes meanwhile reuses it instead of a fork", async () => {
    setMode("ok");
    makePool({ maxWorkers: 2, runsPerWorker: 1, maxIdle: 1, emptyLingerMs: 400 });
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect(b).not.toBe(a);
    pool.release(a);
    pool.release(b);
    await new Promise((r) => setTimeout(r, 150));
    // Both empty, one more than the room kept: it has not lingered long enough yet.
    expect(pool.size).toBe(2);
    expect(await pool.acquire()).toBe(a);
    pool.release(a);
    await until(() => pool.size === 1);
    expect(starts()).toHaveLength(2);
  });
});

describe("reloading a worker pool (new code for new runs)", () => {
  it("the workers alive take no new run and go once empty; the next run gets a fresh worker", async () => {
    setMode("ok");
    makePool({ maxWorkers: 2, runsPerWorker: 2, maxIdle: 0 });
    await pool.catalogueReady();
    const old = await pool.acquire();
    pool.reload();
    const fresh = await pool.acquire();
    expect(fresh).not.toBe(old);
    expect(old.alive).toBe(true);
    const next = await pool.acquire();
    expect(next).toBe(fresh);
    pool.release(old);
    await until(() => !old.alive);
    expect(fresh.alive).toBe(true);
    pool.release(fresh);
    pool.release(next);
  });

  it("says what the workers loaded once one is ready, and does not wait forever when none can start", async () => {
    setMode("throw");
    makePool({ maxStartAttempts: 1 });
    await pool.catalogueReady();
    expect(pool.catalogue).toEqual({ functions: [], failures: [] });
  });
});
