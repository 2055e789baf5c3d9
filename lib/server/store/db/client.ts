import { engineOf, sqliteFilePath } from "./engine";
import { openSqlite, type DirectSqlite, type StatementObserver, type Synchronous } from "./sqlite-connection";
import type { PgLane } from "./pg-lane";
import { pgExecutor, sqliteExecutor, type SqlExecutor } from "../sql-executor";
import type { Engine } from "./engine";

export type { DirectSqlite, PgLane, Synchronous, StatementObserver };
export { engineOf, type Engine } from "./engine";

/**
 * The database the stores run on: the engine's executor (statements written once, run on the
 * engine's own handle). Prisma is the schema and migration tool; it runs none of the server's queries.
 */
export interface Db {
  readonly engine: Engine;
  readonly exec: SqlExecutor;
  /** SQLite's connection (null on PostgreSQL). */
  readonly direct: DirectSqlite | null;
  close(): Promise<void>;
}

export interface DbOptions {
  /** SQLite's `synchronous`: FULL (default) makes every commit survive a power loss; NORMAL only a crash of the process. */
  synchronous?: Synchronous;
  /** Longest a statement waits for a lock held by another process (or a pooled connection) before failing with `database_busy`. */
  busyTimeoutMs?: number;
  /** Counts statements and transactions (the server's metrics). */
  observer?: StatementObserver;
  /** PostgreSQL: connections in the pool (the server passes PARLEY_DB_POOL; 10 by default). */
  poolSize?: number;
  /** SQLite at FULL: what syncs the WAL (tests hold it to see what waits for it). */
  syncWal?: () => Promise<void>;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/** Opens the database named by a `file:` URL (relative paths resolve against the working directory) or a `postgres(ql)://` URL. */
export async function createDb(databaseUrl: string, { synchronous = "FULL", busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS, observer, poolSize, syncWal }: DbOptions = {}): Promise<Db> {
  if (engineOf(databaseUrl) === "postgresql") {
    // PostgreSQL's driver loads only for a PostgreSQL database (the CLI's start-up, a SQLite server's memory).
    const [{ default: pg }, { createPgLane }, { log }] = await Promise.all([import("pg"), import("./pg-lane"), import("../../log")]);
    // Pipelined: a transaction's statements go out without waiting for the answer to the one before (sql-executor.ts).
    const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize ?? DEFAULT_POOL_SIZE, connectionTimeoutMillis: busyTimeoutMs, pipeline: true });
    // An idle connection the server ended (a restart, a failover, an administrator) is dropped and replaced by the pool; unheard, it would end the process.
    pool.on("error", (err) => log.warn({ err }, "[db] an idle PostgreSQL connection ended; the pool opens another when one is needed"));
    await pool.query("SELECT 1");
    const lane: PgLane = createPgLane(pool, observer);
    return { engine: "postgresql", exec: pgExecutor(pool, lane, observer), direct: null, close: () => pool.end() };
  }
  const direct = openSqlite(sqliteFilePath(databaseUrl), { synchronous, busyTimeoutMs, observer, syncWal });
  return { engine: "sqlite", exec: sqliteExecutor(direct), direct, close: () => direct.close() };
}

const UNIQUE_CODES = new Set(["SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE", "23505"]);

/** A write refused by a unique key: a twin got there first (better-sqlite3's code, or pg's 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && UNIQUE_CODES.has(code);
}
