import BetterSqlite3 from "better-sqlite3";
import { BusyQueue, databaseBusy } from "./busy-queue";
import { fileSync, walDurability, type WalDurability } from "./wal-durability";
import { quietLoop } from "../../../loop-utilisation";

export type Synchronous = "FULL" | "NORMAL";

export interface SqliteOptions {
  synchronous: Synchronous;
  /** Longest a statement or a transaction's start waits for a lock held elsewhere. */
  busyTimeoutMs: number;
  /** Told of every statement sent (transaction control counts as a write) and every transaction begun. */
  observer?: StatementObserver;
  /** FULL on a WAL database: what makes the commits so far durable (an fdatasync of the WAL; tests replace it). */
  syncWal?: () => Promise<void>;
}

export interface StatementObserver {
  query(kind: "read" | "write"): void;
  transaction(): void;
}

const NO_OBSERVER: StatementObserver = { query: () => {}, transaction: () => {} };

/**
 * The server's one SQLite connection (better-sqlite3: statements run synchronously, at the call).
 * No lock held by another process (the CLI, a backup, a sqlite3 shell) stalls the event loop: the
 * driver's own busy wait is a few ms, and work that meets a lock waits asynchronously in a
 * BusyQueue. Transactions start with BEGIN IMMEDIATE, so they take the write lock up front and
 * never meet a lock half-way. One transaction is open at a time; while one is, reads from
 * elsewhere wait (they would see what it has not committed). A transaction's work runs its
 * statements on the connection itself (SqlTx), never through `read` or `transaction`, which would
 * wait for it to end. (No AsyncLocalStorage tells them apart: it slows every promise of the process.)
 */
export interface DirectSqlite {
  /**
   * Runs `work` in a BEGIN IMMEDIATE … COMMIT; a throw rolls it back. Works asked for together
   * share the commit, one after the other, each in a savepoint: a work that throws rolls back
   * alone. A work may await between its statements (the connection is its own meanwhile). With
   * FULL, its callers hear once the commit is durable; the next transaction may begin meanwhile.
   * `committed` is told as soon as the commit is made (before it is durable).
   */
  transaction<T>(work: () => T | Promise<T>, committed?: (value: T) => void): Promise<T>;
  /** Runs `work` (reads) once no transaction is open and the commits made before it was asked are durable: it sees only what is committed. */
  read<T>(work: () => T): Promise<T>;
  /** A prepared statement, cached (integers as numbers); each use is counted. */
  prepare(sql: string): DirectStatement;
  close(): Promise<void>;
}

export interface DirectStatement {
  run(...params: unknown[]): BetterSqlite3.RunResult;
  get<Row = Record<string, unknown>>(...params: unknown[]): Row | undefined;
  all<Row = Record<string, unknown>>(...params: unknown[]): Row[];
  /** The result's columns with their declared types (none for a statement that returns no rows). */
  columns(): Array<{ name: string; type: string | null }>;
}

interface QueuedWork {
  work: () => unknown;
  committed?: (value: unknown) => void;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The loop waits for the disk itself while it was busy less than half of the last 100 ms (wal-durability.ts: InlineSync). */
const QUIET_FOR_INLINE_SYNC = { threshold: 0.5, windowMs: 100 };

const isRead = (text: string) => /^\s*SELECT\b/i.test(text);
// better-sqlite3 waits for a lock synchronously, on the event loop: only this long. Longer waits happen in the BusyQueue.
const SYNC_BUSY_WAIT_MS = 5;

export function openSqlite(file: string, { synchronous, busyTimeoutMs, observer = NO_OBSERVER, syncWal }: SqliteOptions): DirectSqlite {
  const handle = new BetterSqlite3(file, { timeout: SYNC_BUSY_WAIT_MS });
  // FULL: a commit's callers hear once it would survive a power loss (a recorded receipt stays recorded).
  // On a WAL database the WAL is synced off the event loop (wal-durability.ts); otherwise SQLite syncs in COMMIT.
  const wal = handle.pragma("journal_mode", { simple: true }) === "wal";
  const durability = synchronous === "FULL" && wal ? walDurabilityOf(file, syncWal) : null;
  handle.pragma(`synchronous = ${durability ? "NORMAL" : synchronous}`);
  const busy = new BusyQueue({ budgetMs: busyTimeoutMs });
  const oneTransaction = new DeadlineMutex();
  /** Settles when the open transaction ends; undefined while none is. */
  let openTransaction: Promise<void> | undefined;
  let statementsWaiting = 0;

  const statements = new Map<string, DirectStatement>();
  const prepare = (text: string): DirectStatement => {
    let statement = statements.get(text);
    if (!statement) {
      const prepared = handle.prepare(text).safeIntegers(false);
      const kind = isRead(text) ? "read" : "write";
      statement = {
        run: (...params) => (observer.query(kind), prepared.run(...params)),
        get: <Row>(...params: unknown[]) => (observer.query(kind), prepared.get(...params) as Row | undefined),
        all: <Row>(...params: unknown[]) => (observer.query(kind), prepared.all(...params) as Row[]),
        columns: () => (prepared.reader ? prepared.columns() : []),
      };
      statements.set(text, statement);
    }
    return statement;
  };

  /** Runs work once no transaction is open and what was committed before it was asked is durable: it sees only what is kept. */
  async function outsideTransaction<T>(work: () => T): Promise<T> {
    const kept = durability?.settled();
    if (openTransaction || kept) {
      statementsWaiting++;
      try {
        await kept;
        while (openTransaction !== undefined) await openTransaction;
      } finally {
        statementsWaiting--;
      }
    }
    return work();
  }

  /** Holds the connection's one transaction; statements that waited for the previous one go first. */
  async function takeTurn(deadline: number): Promise<() => void> {
    const release = await oneTransaction.acquire(deadline);
    if (statementsWaiting > 0) await new Promise((resolve) => setImmediate(resolve));
    return release;
  }

  // Transaction control, prepared once (every commit runs it). BEGIN, COMMIT and ROLLBACK count as writes.
  const [begin, commit, rollback, savepoint, releaseSavepoint, rollbackToSavepoint] = ["BEGIN IMMEDIATE", "COMMIT", "ROLLBACK", "SAVEPOINT work", "RELEASE work", "ROLLBACK TO work"].map((text) =>
    handle.prepare(text),
  );
  const control = (statement: BetterSqlite3.Statement) => (observer.query("write"), statement.run());
  // Rows changed by this connection so far (never rolled back): a batch that changed none wrote nothing to the WAL (the store runs no DDL here).
  const totalChanges = handle.prepare("SELECT total_changes()").pluck();

  /** A work inside the open transaction, in a savepoint of its own: its throw rolls back only what it wrote. */
  async function inSavepoint<T>(work: () => T | Promise<T>): Promise<T> {
    savepoint!.run();
    try {
      const value = await work();
      releaseSavepoint!.run();
      return value;
    } catch (err) {
      rollbackToSavepoint!.run();
      releaseSavepoint!.run();
      throw err;
    }
  }

  /**
   * Group commit: the transactions asked for in one turn of the event loop (more pile up while a
   * commit's fsync holds it) share one BEGIN IMMEDIATE … COMMIT. Each caller hears once the shared
   * COMMIT is durable.
   */
  let queued: QueuedWork[] = [];
  const commitQueued = async (): Promise<void> => {
    const deadline = busy.deadline();
    let release: () => void;
    try {
      release = await takeTurn(deadline);
    } catch (err) {
      for (const q of queued.splice(0)) q.reject(err);
      return;
    }
    // Everything asked for until now joins this commit; what comes later schedules the next.
    const batch = queued;
    queued = [];
    let ended: (() => void) | undefined;
    let outcomes: Array<{ value: unknown } | { error: unknown }> = [];
    let kept: Promise<void> | undefined;
    try {
      const changesBefore = totalChanges.get() as number;
      await busy.run(async () => control(begin!), { deadline });
      observer.transaction();
      openTransaction = new Promise((resolve) => (ended = resolve));
      for (const q of batch)
        outcomes.push(
          await inSavepoint(q.work).then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          ),
        );
      const wrote = totalChanges.get() !== changesBefore;
      control(commit!);
      // A batch that wrote nothing has nothing to sync: its callers wait only for the commits before it.
      kept = wrote ? durability?.committed() : (durability?.settled() ?? undefined);
      let handedOn = false;
      outcomes = outcomes.map((outcome, i) => {
        if ("error" in outcome) return outcome;
        try {
          handedOn ||= batch[i]!.committed !== undefined;
          batch[i]!.committed?.(outcome.value);
          return outcome;
        } catch (error) {
          return { error };
        }
      });
      durability?.flush(handedOn);
    } catch (err) {
      if (handle.inTransaction) control(rollback!);
      outcomes = batch.map(() => ({ error: err }));
    } finally {
      openTransaction = undefined;
      ended?.();
      release();
    }
    // The next transaction may begin while this one's commit is made durable; its callers hear once it is.
    if (kept) {
      try {
        await kept;
      } catch (err) {
        outcomes = batch.map(() => ({ error: err }));
      }
    }
    outcomes.forEach((outcome, i) => ("error" in outcome ? batch[i]!.reject(outcome.error) : batch[i]!.resolve(outcome.value)));
  };

  return {
    prepare,
    read: <T>(work: () => T): Promise<T> => busy.run(() => outsideTransaction(work), { write: false }),
    transaction: <T>(work: () => T | Promise<T>, committed?: (value: T) => void): Promise<T> => {
      return new Promise<T>((resolve, reject) => {
        queued.push({ work, committed: committed as ((value: unknown) => void) | undefined, resolve: resolve as (value: unknown) => void, reject });
        if (queued.length === 1) setImmediate(() => void commitQueued());
      });
    },
    async close(): Promise<void> {
      const release = await oneTransaction.acquire(busy.deadline()).catch(() => () => {});
      await durability?.close();
      handle.close();
      release();
    },
  };
}

/** FULL on a WAL database: the WAL synced after the commits (SQLite keeps the file while this connection is open). */
function walDurabilityOf(file: string, syncWal?: () => Promise<void>): WalDurability {
  if (syncWal) return walDurability(syncWal);
  const { sync, syncNow, release } = fileSync(`${file}-wal`);
  return walDurability(sync, release, { syncNow, when: quietLoop(QUIET_FOR_INLINE_SYNC) });
}

/** A mutex whose waiters give up with `database_busy` at their deadline. */
class DeadlineMutex {
  private held = false;
  private readonly waiters: Array<() => void> = [];

  acquire(deadline: number): Promise<() => void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve(this.releaser());
      };
      const timer = setTimeout(
        () => {
          const at = this.waiters.indexOf(grant);
          if (at >= 0) this.waiters.splice(at, 1);
          reject(databaseBusy());
        },
        Math.max(0, deadline - Date.now()),
      );
      this.waiters.push(grant);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next();
      else this.held = false;
    };
  }
}
