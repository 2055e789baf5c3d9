import pino from "pino";
import { createLog, levelFrom, type Logger } from "../lib/log/create-log";
import { currentScope } from "./runtime/run-scope";

/**
 * The worker's log: JSON lines on stderr, which the server reads and logs as its own. A line
 * written while a run's code runs names that run and its function.
 */
export function createWorkerLog(functionOf: (runId: string) => string | undefined): Logger {
  return createLog({
    destination: pino.destination({ fd: 2, sync: true }),
    level: levelFrom(process.env),
    mixin() {
      const runId = currentScope()?.runId;
      return runId ? { runId, fn: functionOf(runId) } : {};
    },
  });
}

/** What the runs' code writes to stdout and stderr (console.log, say) becomes lines of the log, each of the run that wrote it. */
export function captureOutput(log: Logger): void {
  for (const [stream, name, level] of [
    [process.stdout, "stdout", "info"],
    [process.stderr, "stderr", "warn"],
  ] as const) {
    stream.write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      for (const line of text.split("\n")) if (line.trim()) log[level]({ stream: name }, line);
      const done = rest.find((arg) => typeof arg === "function") as (() => void) | undefined;
      if (done) process.nextTick(done);
      return true;
    };
  }
}
