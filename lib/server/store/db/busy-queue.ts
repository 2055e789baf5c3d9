import { AppError } from "../../../protocol/errors";

/** better-sqlite3 reports a lock held elsewhere as SQLITE_BUSY*. */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

export function databaseBusy(cause?: unknown): AppError {
  return new AppError("database_busy", "The database is busy with another program. Try again in a moment.", { cause });
}

export interface BusyQueueOptions {
  /** Longest a statement waits for a lock held by another process before it fails with `database_busy`. */
  budgetMs: number;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Where statements wait, without blocking the event loop, for a write lock held by another process.
 * The driver itself only waits a few ms (synchronously). A statement that still meets the lock joins
 * one queue: its head retries with backoff until its deadline, the others wait their turn rather than
 * each probing the lock, and writes that arrive meanwhile queue behind them. Reads skip the queue
 * (WAL readers are not blocked by a writer).
 */
export class BusyQueue {
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  private readonly firstDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: BusyQueueOptions) {
    this.firstDelayMs = options.firstDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 50;
  }

  /** A deadline `budgetMs` from now, for callers that wait for something else first. */
  deadline(): number {
    return Date.now() + this.options.budgetMs;
  }

  async run<T>(attempt: () => Promise<T>, { write = true, deadline = this.deadline() }: { write?: boolean; deadline?: number } = {}): Promise<T> {
    if (!write || this.queued === 0) {
      try {
        return await attempt();
      } catch (err) {
        if (!isBusyError(err)) throw err;
      }
    }
    return this.waitInLine(attempt, deadline);
  }

  private async waitInLine<T>(attempt: () => Promise<T>, deadline: number): Promise<T> {
    this.queued++;
    const ahead = this.tail;
    let leave!: () => void;
    this.tail = new Promise((resolve) => (leave = resolve));
    try {
      await ahead;
      for (let delay = this.firstDelayMs; ; delay = Math.min(delay * 2, this.maxDelayMs)) {
        try {
          return await attempt();
        } catch (err) {
          if (!isBusyError(err)) throw err;
          const left = deadline - Date.now();
          if (left <= 0) throw databaseBusy(err);
          await sleep(Math.min(delay, left));
        }
      }
    } finally {
      this.queued--;
      leave();
    }
  }
}
