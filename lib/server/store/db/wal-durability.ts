import { close, fdatasync, fdatasyncSync, openSync } from "node:fs";

/**
 * Commits made durable apart from COMMIT. SQLite's `synchronous = FULL` syncs the WAL inside
 * COMMIT, on the thread that runs it: the whole server waits for the disk at every commit. Here
 * the connection commits at NORMAL (the WAL written, not synced) and each commit's callers hear
 * once a sync of the WAL that began after the commit has ended. Nobody hears of a commit before it
 * would survive a power loss, as with FULL. One sync covers every commit made before it began;
 * commits made while one runs share the next.
 *
 * The sync runs on libuv's thread pool, so that the event loop serves tabs and the next
 * transactions meanwhile; but a quiet loop (`inline`) syncs on itself the commit of a turn that
 * handed no work on (a reply's claim, a run's line) and that began no sync while one ran: the
 * thread pool's hand-off (a thread woken for the sync, then the loop woken for its end) cost a
 * reply's retraction about 0.4 ms on 2 cores, more than an idle loop loses by waiting for the disk.
 * A run handed to its worker at commit (its start, a replay) syncs on the pool: its worker's first
 * message is read and stored while the disk works.
 */
export interface WalDurability {
  /** A commit was just made: settles once it is durable (rejects when the sync failed). Its sync begins at `flush`, or after the current turn's microtasks. */
  committed(): Promise<void>;
  /**
   * Begins the sync of the commits made so far, unless one runs. `handedOn`: the commit's hooks
   * handed work on (a run to its worker), whose answer the loop should be free to take while the
   * disk syncs; otherwise a quiet loop syncs on itself.
   */
  flush(handedOn: boolean): void;
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

/** A sync on the event loop, for while it is quiet. */
export interface InlineSync {
  syncNow: () => void;
  /** Whether the loop is quiet enough now to wait for the disk itself. */
  when: () => boolean;
}

/** Durability through `sync`, which must make every commit made before it was called durable (and `inline.syncNow` likewise). */
export function walDurability(sync: () => Promise<void>, release: () => Promise<void> = async () => {}, inline?: InlineSync): WalDurability {
  let written = 0;
  let synced = 0;
  let running: Promise<void> | null = null;
  const waiters: Waiter[] = [];

  /** Settles the waiters (in commit order) up to `seq`. */
  const settleUpTo = (seq: number, settle: (w: Waiter) => void) => {
    while (waiters.length && waiters[0]!.seq <= seq) settle(waiters.shift()!);
  };

  const start = (onTheLoop = false): void => {
    if (running || waiters.length === 0) return;
    const upTo = written;
    running = (onTheLoop && inline?.when() ? now(inline.syncNow) : sync())
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
      queueMicrotask(() => start());
    });

  return {
    committed: () => durable(++written),
    flush: (handedOn) => start(!handedOn),
    settled: () => (synced >= written ? null : durable(written)),
    async close() {
      while (running) await running;
      await release();
    },
  };
}

/** `syncNow` (run at once), as a sync's promise: its throw rejects it. */
const now = (syncNow: () => void): Promise<void> => new Promise((resolve) => resolve(syncNow()));

/** fdatasync of a file (the WAL: SQLite keeps it while a connection is open), opened at the first sync: on the thread pool, or `syncNow` on the loop. */
export function fileSync(file: string): { sync: () => Promise<void>; syncNow: () => void; release: () => Promise<void> } {
  let fd: number | null = null;
  const opened = (): number => (fd ??= openSync(file, "r+"));
  return {
    // A file that cannot be opened rejects the sync (the executor's throw).
    sync: () => new Promise((resolve, reject) => fdatasync(opened(), (err) => (err ? reject(err) : resolve()))),
    syncNow: () => fdatasyncSync(opened()),
    release: () =>
      new Promise((resolve) => {
        if (fd === null) return resolve();
        close(fd, () => resolve());
        fd = null;
      }),
  };
}
