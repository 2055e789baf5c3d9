import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../../generated/prisma/client";
import { databaseBusy } from "./busy-queue";
import { LockAwareAdapterFactory, transactionCallback, type DirectSqlite, type StatementObserver, type Synchronous } from "./lock-aware-adapter";

export type Db = PrismaClient;
export type { DirectSqlite };

const DIRECT = Symbol.for("parley.db.direct");
/** The client inside an interactive transaction. */
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
export type { Synchronous };

export interface DbOptions {
  /** SQLite's `synchronous`: FULL (default) makes every commit survive a power loss; NORMAL only a crash of the process. */
  synchronous?: Synchronous;
  /** Longest a statement waits for a lock held by another process before failing with `database_busy`. */
  busyTimeoutMs?: number;
  /** Counts statements and transactions (the server's metrics). */
  observer?: StatementObserver;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;
// better-sqlite3 waits for a lock synchronously, on the event loop: only this long. Longer waits
// happen asynchronously in the adapter's BusyQueue.
const SYNC_BUSY_WAIT_MS = 5;

/** Opens the database named by a `file:` URL (relative paths resolve against the working directory). */
export async function createDb(databaseUrl: string, { synchronous = "FULL", busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS, observer }: DbOptions = {}): Promise<Db> {
  const driver = new PrismaBetterSqlite3({ url: databaseUrl, timeout: SYNC_BUSY_WAIT_MS });
  const adapter = new LockAwareAdapterFactory(driver, { synchronous, busyTimeoutMs, observer });
  const client = new PrismaClient({
    adapter,
    // The adapter gives up with `database_busy` at busyTimeoutMs; Prisma's own start timeout must not cut in first.
    transactionOptions: { maxWait: busyTimeoutMs + 1_000 },
  });
  await client.$connect();
  const db = markTransactionCallbacks(withTypedErrors(client));
  (db as { [DIRECT]?: DirectSqlite | null })[DIRECT] = adapter.direct;
  return db;
}

/** The connection's direct lane for hot paths, or null (another engine, or a driver that hides it): use Prisma then. */
export function directSqlite(db: Db): DirectSqlite | null {
  return (db as { [DIRECT]?: DirectSqlite | null })[DIRECT] ?? null;
}

/** Runs each `$transaction(fn)` callback in a context the adapter recognises (see transactionCallback). */
function markTransactionCallbacks(db: Db): Db {
  const $transaction = ((first: unknown, ...rest: unknown[]) =>
    typeof first === "function"
      ? (db.$transaction as (...args: unknown[]) => unknown)((tx: unknown) => transactionCallback.run(true, () => first(tx)), ...rest)
      : (db.$transaction as (...args: unknown[]) => unknown)(first, ...rest)) as Db["$transaction"];
  return new Proxy(db, { get: (target, prop) => (prop === "$transaction" ? $transaction : Reflect.get(target, prop)) });
}

/**
 * Prisma rewraps an adapter's error as a PrismaClientKnownRequestError with the same `code`, so a
 * query that gave up on a lock turns back into the AppError here. The extension changes no types.
 */
function withTypedErrors(client: PrismaClient): Db {
  return client.$extends({
    query: {
      async $allOperations({ args, query }) {
        try {
          return await query(args);
        } catch (err) {
          throw isBusyRejection(err) ? databaseBusy(err) : err;
        }
      },
    },
  }) as unknown as Db;
}

// P1008 is what Prisma makes of SQLITE_BUSY when it reaches it without passing the BusyQueue.
const isBusyRejection = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "database_busy" || code === "P1008";
};

/** A write refused by a unique key (Prisma's P2002): a twin got there first. */
export function isUniqueViolation(err: unknown): boolean {
  const code = typeof err === "object" && err !== null ? (err as { code?: string }).code : undefined;
  return code === "P2002" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}
