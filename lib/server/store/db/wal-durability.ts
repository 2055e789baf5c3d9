import { close, fdatasync, openSync } from "node:fs";

/**
 * Commits made durable off the event loop. SQLite's `synchronous = FULL` syncs the WAL inside
 * COMMIT, on the thread that runs it: the whole server waits for the disk at every commit. Here
 * the connection commits at NORMAL (the WAL written, not synced) and each commit's callers hear
 * once a sync of the WAL that began after the commit has ended, on libuv's thread pool. Nobody
 * hears of a commit before it would survive a power loss, as with FULL, while the event loop
 * serves tabs and the next transactions. One sync covers every commit made before it began;
 * commits made while one runs share the next.
 */
export interface WalDurability {
  /** A commit was just made: settles once it is durable (rejects when the sync failed). */
  committed(): Promise<void>;
  /** Settles once the commits made so far are durable; null when they are already. */
  settled(): Promise<void> | null;
  /** Waits for the sync under way, then lets go of the file. */
  close(): Promise<void>;
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Durability through `sync`, which must make every commit made before it was called durable. */
export function walDurability(sync: () => Promise<void>, release: () => Promise<void> = async () => {}): WalDurability {
  let written = 0;
  let synced = 0;
  let running: Promise<void> | null = null;
  const waiters: Waiter[] = [];

  /** Settles the waiters (in commit order) up to `seq`. */
  const settleUpTo = (seq: number, settle: (w: Waiter) => void) => {
    while (waiters.length && waiters[0]!.seq <= seq) settle(waiters.shift()!);
  };

  const start = (): void => {
    if (running || waiters.length === 0) return;
    const upTo = written;
    running = sync()
      .then(
        () => {
          synced = upTo;
          settleUpTo(upTo, (w) => w.resolve());
        },
        (err: unknown) => settleUpTo(upTo, (w) => w.reject(err)),
      )
      .finally(() => {
        running = null;
        start();
      });
  };

  const durable = (seq: number): Promise<void> =>
    new Promise((resolve, reject) => {
      waiters.push({ seq, resolve, reject });
      start();
    });

  return {
    committed: () => durable(++written),
    settled: () => (synced >= written ? null : durable(written)),
    async close() {
      while (running) await running;
      await release();
    },
  };
}

/** fdatasync of a file (the WAL: SQLite keeps it while a connection is open), opened at the first sync. */
export function fileSync(file: string): { sync: () => Promise<void>; release: () => Promise<void> } {
  let fd: number | null = null;
  return {
    sync: () =>
      new Promise((resolve, reject) => {
        try {
          fd ??= openSync(file, "r+");
        } catch (err) {
          return reject(err instanceof Error ? err : new Error(String(err)));
        }
        fdatasync(fd, (err) => (err ? reject(err) : resolve()));
      }),
    release: () =>
      new Promise((resolve) => {
        if (fd === null) return resolve();
        close(fd, () => resolve());
        fd = null;
      }),
  };
}
