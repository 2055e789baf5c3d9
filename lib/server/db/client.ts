import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../../generated/prisma/client";
import { databaseBusy } from "./busy-queue";
import { engineOf } from "./engine";
import { observedAdapterFactory } from "./observed-adapter";
import { LockAwareAdapterFactory, transactionCallback, type DirectSqlite, type StatementObserver, type Synchronous } from "./lock-aware-adapter";
import type { PgLane } from "./pg-lane";

export type Db = PrismaClient;
export type { DirectSqlite, PgLane };

const DIRECT = Symbol.for("parley.db.direct");
const PG_LANE = Symbol.for("parley.db.pg-lane");
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
  /** PostgreSQL: connections in the pool (the server passes PARLEY_DB_POOL; 10 by default). */
  poolSize?: number;
}

export { engineOf, type Engine } from "./engine";

export const DEFAULT_POOL_SIZE = 10;

export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;
// better-sqlite3 waits for a lock synchronously, on the event loop: only this long. Longer waits
// happen asynchronously in the adapter's BusyQueue.
const SYNC_BUSY_WAIT_MS = 5;

/**
 * Opens the database named by a `file:` URL (relative paths resolve against the working directory)
 * or a `postgres(ql)://` URL. Domain code is typed against the SQLite client; the PostgreSQL client
 * (lib/generated/prisma-pg, same models) is cast to that type here, once.
 */
export async function createDb(databaseUrl: string, options: DbOptions = {}): Promise<Db> {
  return engineOf(databaseUrl) === "postgresql" ? createPostgresDb(databaseUrl, options) : createSqliteDb(databaseUrl, options);
}

async function createPostgresDb(connectionString: string, { busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS, poolSize, observer }: DbOptions): Promise<Db> {
  // PostgreSQL's driver and client load only for a PostgreSQL database (the CLI's start-up, a SQLite server's memory).
  const [{ PrismaPg }, { default: pg }, { PrismaClient: PgPrismaClient }, { createPgLane }] = await Promise.all([
    import("@prisma/adapter-pg"),
    import("pg"),
    import("../../generated/prisma-pg/client"),
    import("./pg-lane"),
  ]);
  const max = poolSize ?? DEFAULT_POOL_SIZE;
  // One pool for Prisma and the hot paths' own statements; Prisma ends it on $disconnect.
  const pool = new pg.Pool({ connectionString, max });
  const driver = new PrismaPg(pool, { disposeExternalPool: true });
  const client = new PgPrismaClient({
    // The lock-aware adapter is SQLite's; here only the statements are counted.
    adapter: observer ? observedAdapterFactory(driver, observer) : driver,
    // A transaction may wait for a free pooled connection: as long as a SQLite one waits for its lock.
    transactionOptions: { maxWait: busyTimeoutMs + 1_000 },
  });
  await client.$connect();
  const db = markTransactionCallbacks(withTypedErrors(client as unknown as PrismaClient));
  (db as { [DIRECT]?: DirectSqlite | null })[DIRECT] = null;
  (db as { [PG_LANE]?: PgLane })[PG_LANE] = createPgLane(pool, observer);
  return db;
}

async function createSqliteDb(databaseUrl: string, { synchronous = "FULL", busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS, observer }: DbOptions): Promise<Db> {
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

/** Closes the database (its connections; a PostgreSQL pool). */
export const closeDb = (db: Db) => db.$disconnect();

/** The connection's direct lane for hot paths, or null (another engine, or a driver that hides it): use Prisma then. */
export function directSqlite(db: Db): DirectSqlite | null {
  return (db as { [DIRECT]?: DirectSqlite | null })[DIRECT] ?? null;
}

/** PostgreSQL's lane for hot paths (the pool's own statements), or null on SQLite. */
export function directPg(db: Db): PgLane | null {
  return (db as { [PG_LANE]?: PgLane })[PG_LANE] ?? null;
}

/** Runs each `$transaction(fn)` callback in a context the adapter recognises (see transactionCallback). */
function markTransactionCallbacks(db: Db): Db {
  const $transaction = ((first: unknown, ...rest: unknown[]) =>
    typeof first === "function"
      ? (db.$transaction as (...args: unknown[]) => unknown)((tx: unknown) => transactionCallback.run(true, () => (first as (tx: unknown) => unknown)(tx)), ...rest)
      : (db.$transaction as (...args: unknown[]) => unknown)(first, ...rest)) as Db["$transaction"];
  return new Proxy(db, { get: (target, prop) => (prop === "$transaction" ? $transaction : (Reflect.get(target, prop) as unknown)) });
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
          return (await query(args)) as unknown;
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

const UNIQUE_CODES = new Set(["P2002", "SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE", "23505"]);

/**
 * A write refused by a unique key: a twin got there first. Prisma's P2002 on either engine; a raw
 * statement's failure carries the driver adapter's error instead (P2010 with
 * `meta.driverAdapterError`, whose cause is `{ kind: "UniqueConstraintViolation", originalCode: "23505" }`
 * on PostgreSQL), and pg's own error has code 23505.
 */
export function isUniqueViolation(err: unknown, depth = 0): boolean {
  if (typeof err !== "object" || err === null || depth > 4) return false;
  const e = err as { code?: unknown; kind?: unknown; originalCode?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
  if (typeof e.code === "string" && UNIQUE_CODES.has(e.code)) return true;
  if (e.kind === "UniqueConstraintViolation" || e.originalCode === "23505") return true;
  return isUniqueViolation(e.cause, depth + 1) || isUniqueViolation(e.meta?.driverAdapterError, depth + 1);
}
