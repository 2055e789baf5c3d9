import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";

const script = path.resolve(import.meta.dirname, "hold-write-lock.mjs");

/** Another process takes SQLite's write lock (BEGIN IMMEDIATE) on `file` for `ms`; resolves once it holds it. */
export async function holdWriteLock(file: string, ms: number) {
  const child = spawn(process.execPath, [script, file, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d;
      if (out.includes("locked")) resolve();
    });
    child.once("exit", () => reject(new Error(`the lock holder exited early: ${out}`)));
  });
  const lockedAt = Date.now();
  const exited = once(child, "exit");
  return { lockedAt, released: () => exited.then(() => undefined) };
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
