import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";

const script = path.resolve(import.meta.dirname, "hold-write-lock.mjs");

/** Another process takes SQLite's write lock (BEGIN IMMEDIATE) on `file` for `ms`; resolves once it holds it. */
export async function holdWriteLock(file: string, ms: number) {
  const child = spawn(process.execPath, [script, file, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  let releasedAt = NaN;
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("locked")) resolve();
      if (Number.isNaN(releasedAt) && out.includes("released")) releasedAt = Date.now();
    });
    child.once("exit", () => reject(new Error(`the lock holder exited early: ${out}`)));
  });
  const lockedAt = Date.now();
  const exited = once(child, "exit");
  /** Resolves with how long the lock was held, as seen from here (longer than `ms` when the holder was starved of CPU). */
  return { lockedAt, released: () => exited.then(() => (Number.isNaN(releasedAt) ? Date.now() : releasedAt) - lockedAt) };
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
