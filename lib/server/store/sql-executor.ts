import type pg from "pg";
import type { DirectSqlite, PgLane, StatementObserver } from "./db/client";
import type { Engine } from "./db/engine";
import { databaseBusy } from "./db/busy-queue";
import type { Params, Statement } from "./typed-sql";

/**
 * Runs statements written once (typed-sql.ts) on an engine's own handle. Rows come back in the
 * schema's types on both engines: DateTime as Date, Boolean as boolean, integers as numbers.
 */
export interface SqlExecutor extends Omit<SqlTx, "commitWith"> {
  /** One write statement, atomic on its own: the rows it returned (RETURNING). `committed` as for `transaction`. */
  write<P extends Params, R>(statement: Statement<P, R>, params: P, hooks?: { committed?: (rows: R[]) => void }): Promise<R[]>;
  /** One write statement without RETURNING, atomic on its own: how many rows it changed. */
  changes<P extends Params>(statement: Statement<P, unknown>, params: P): Promise<number>;
  /**
   * Statements in one transaction: all commit, or a throw from `work` rolls them all back. The
   * promise settles once the commit is durable; `committed` hears of the commit as soon as it is
   * made, which on SQLite is before its WAL is synced (sqlite-connection.ts): only for work whose
   * start need not wait for that, as it makes no change anyone sees before its own durable commit.
   */
  transaction<T>(work: (tx: SqlTx) => Promise<T>, hooks?: { committed?: (value: T) => void }): Promise<T>;
}

/** Statements inside one transaction (SqlExecutor.transaction); the executor itself runs each on its own. */
export interface SqlTx {
  readonly engine: Engine;
  /** A read's rows (on the executor: seeing only what is committed; a write with RETURNING goes through `write`). */
  rows<P extends Params, R>(statement: Statement<P, R>, params: P): Promise<R[]>;
  changes<P extends Params>(statement: Statement<P, unknown>, params: P): Promise<number>;
  /**
   * Issues the transaction's last statements (`last` issues them all before its first await) and,
   * on PostgreSQL, its COMMIT with them: one round trip fewer. Nothing may be issued after them,
   * and what they return cannot roll the transaction back, only a statement's error can: for
   * statements whose outcome the transaction already holds (a row it locked).
   */
  commitWith<T>(last: () => Promise<T>): Promise<T>;
}

/** Where a read runs: in a transaction, or on its own (the executor). */
export type SqlReader = Pick<SqlTx, "rows">;

/** SQLite's statements, run synchronously on the connection (inside its transaction or read). */
interface SqliteNow {
  rows<P extends Params, R>(statement: Statement<P, R>, params: P): R[];
  /** How many rows a statement without RETURNING changed. */
  changes<P extends Params>(statement: Statement<P, unknown>, params: P): number;
}

/** A DateTime as Prisma stores it in SQLite (ISO 8601 with "+00:00"), so text comparison orders it with the stored times. */
const sqliteTime = (d: Date): string => d.toISOString().replace("Z", "+00:00");

const sqliteValue = (value: unknown): unknown => (value instanceof Date ? sqliteTime(value) : typeof value === "boolean" ? (value ? 1 : 0) : value === undefined ? null : value);

type Decode = (row: Record<string, unknown>) => Record<string, unknown>;

/** A decoder built from the columns' declared types (Prisma declares DATETIME and BOOLEAN). */
function decoderOf(columns: Array<{ name: string; type: string | null }>): Decode {
  const dates = columns.filter((c) => c.type === "DATETIME").map((c) => c.name);
  const booleans = columns.filter((c) => c.type === "BOOLEAN").map((c) => c.name);
  if (dates.length === 0 && booleans.length === 0) return (row) => row;
  return (row) => {
    for (const name of dates) if (row[name] !== null && row[name] !== undefined) row[name] = new Date(row[name] as string | number);
    for (const name of booleans) if (row[name] !== null && row[name] !== undefined) row[name] = row[name] === 1 || row[name] === true;
    return row;
  };
}

function sqliteNow(direct: DirectSqlite): SqliteNow {
  const decoders = new Map<string, Decode>();
  const decoderFor = (sql: string) => {
    let decode = decoders.get(sql);
    if (!decode) decoders.set(sql, (decode = decoderOf(direct.prepare(sql).columns())));
    return decode;
  };
  return {
    rows<P extends Params, R>(statement: Statement<P, R>, params: P): R[] {
      const { sql, bind } = statement.compiled("sqlite");
      const decode = decoderFor(sql);
      return direct
        .prepare(sql)
        .all<Record<string, unknown>>(...bind(params).map(sqliteValue))
        .map(decode) as R[];
    },
    changes<P extends Params>(statement: Statement<P, unknown>, params: P): number {
      const { sql, bind } = statement.compiled("sqlite");
      return direct.prepare(sql).run(...bind(params).map(sqliteValue)).changes;
    },
  };
}

export function sqliteExecutor(direct: DirectSqlite): SqlExecutor {
  const now = sqliteNow(direct);
  const tx: SqlTx = {
    engine: "sqlite",
    rows: async (statement, params) => now.rows(statement, params),
    changes: async (statement, params) => now.changes(statement, params),
    // SQLite commits once the work returns: its statements ran as they were issued.
    commitWith: (last) => last(),
  };
  return {
    engine: "sqlite",
    rows: (statement, params) => direct.read(() => now.rows(statement, params)),
    write: (statement, params, hooks) => direct.transaction(() => now.rows(statement, params), hooks?.committed),
    changes: (statement, params) => direct.transaction(() => now.changes(statement, params)),
    transaction: (work, hooks) => direct.transaction(() => work(tx), hooks?.committed),
  };
}

/** A Date as a `timestamp without time zone` literal in UTC, as Prisma stores it (pg would send the process's local time). */
const pgTime = (date: Date): string => date.toISOString();
const pgValue = (value: unknown): unknown => (value instanceof Date ? pgTime(value) : value === undefined ? null : value);

/** Statements on `lane`, each refused once `open` says no (a transaction whose COMMIT was sent). */
function pgStatements(lane: PgLane, open: () => boolean = () => true): Omit<SqlTx, "commitWith"> {
  const closed = () => Promise.reject(new Error("A statement was issued after its transaction's COMMIT was sent (commitWith)."));
  return {
    engine: "postgresql",
    rows: <P extends Params, R>(statement: Statement<P, R>, params: P) => {
      if (!open()) return closed();
      const { sql, bind } = statement.compiled("postgresql");
      return lane.query<R>(sql, bind(params).map(pgValue));
    },
    changes: (statement, params) => {
      if (!open()) return closed();
      const { sql, bind } = statement.compiled("postgresql");
      return lane.execute(sql, bind(params).map(pgValue));
    },
  };
}

export function pgExecutor(pool: pg.Pool, lane: PgLane, observer?: StatementObserver): SqlExecutor {
  const { rows, changes } = pgStatements(lane);
  return {
    engine: "postgresql",
    rows,
    // A statement on its own commits as it is answered (and is durable then): no BEGIN, no COMMIT.
    async write(statement, params, hooks) {
      const written = await rows(statement, params);
      hooks?.committed?.(written);
      return written;
    },
    changes,
    async transaction<T>(work: (tx: SqlTx) => Promise<T>, hooks?: { committed?: (value: T) => void }): Promise<T> {
      const client = await pool.connect().catch((err: unknown) => {
        throw /timeout/i.test(String(err)) ? databaseBusy(err) : err;
      });
      // BEGIN and COMMIT count as writes, as SQLite's do.
      const control = (text: "BEGIN" | "COMMIT") => (observer?.query("write"), client.query(text));
      // A connection that could not roll back (it broke) is destroyed, not handed to the next transaction.
      let broken: Error | undefined;
      try {
        observer?.transaction();
        // Not waited for: it leaves with the transaction's first statement, one round trip fewer.
        // Should it fail, so does every statement after it, and the work with them.
        const begun = control("BEGIN");
        begun.catch(() => {});
        // Sent by commitWith with the work's last statements, or here once the work is done.
        let committed: Promise<unknown> | undefined;
        const commit = () => {
          committed = control("COMMIT");
          committed.catch(() => {});
        };
        const tx: SqlTx = {
          ...pgStatements(lane.on(client), () => committed === undefined),
          commitWith: (last) => {
            const issued = last();
            commit();
            return issued;
          },
        };
        const value = await work(tx);
        await begun;
        if (!committed) commit();
        await committed;
        hooks?.committed?.(value);
        return value;
      } catch (err) {
        await client.query("ROLLBACK").catch((rollbackErr: unknown) => (broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr))));
        throw err;
      } finally {
        client.release(broken);
      }
    },
  };
}
