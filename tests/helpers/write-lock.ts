import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";

const script = path.resolve(import.meta.dirname, "hold-write-lock.mjs");

/**
 * Another process takes SQLite's write lock (BEGIN IMMEDIATE) on `file` for `ms`; resolves once it
 * holds it. Its times are the holder's own clock (Date.now(), the same clock as this process's):
 * `lockedAt` once it held the lock, `releasedAt()` just before it let go.
 */
export async function holdWriteLock(file: string, ms: number) {
  const child = spawn(process.execPath, [script, file, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const stamp = (what: string) => Number(new RegExp(`^${what} (\\d+)$`, "m").exec(out)?.[1] ?? NaN);
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (!Number.isNaN(stamp("locked"))) resolve();
    });
    child.once("exit", () => reject(new Error(`the lock holder exited early: ${out}`)));
  });
  const lockedAt = stamp("locked");
  // "close": its output read to the end (an "exit" may come before the last line).
  const exited = once(child, "close").then(() => {
    const at = stamp("released");
    if (Number.isNaN(at)) throw new Error(`the lock holder did not say when it let go: ${out}`);
    return at;
  });
  exited.catch(() => {});
  return {
    lockedAt,
    /** When the holder let go of the lock (a write that waited for it ends after this). */
    releasedAt: () => exited,
    /** How long the lock was held (longer than `ms` when the holder was starved of CPU). */
    released: () => exited.then((at) => at - lockedAt),
  };
}

/** The longest gap between 5 ms timer ticks in this process, i.e. how long its event loop was blocked. */
export function eventLoopProbe() {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(worst, performance.now() - last);
    },
  };
}
