import { directPg, directSqlite, type Db, type DirectSqlite, type PgLane, type Tx } from "../db/client";
import { sqliteTime } from "../db/direct-rows";
import type { Engine } from "../db/engine";
import { pgTime } from "../db/pg-lane";
import type { Params, Statement } from "./typed-sql";

/**
 * Runs statements written once (typed-sql.ts) on an engine's own handle. Rows come back in the
 * schema's types on both engines: DateTime as Date, Boolean as boolean, integers as numbers.
 */
export interface SqlExecutor {
  readonly engine: Engine;
  /** One read statement, seeing only what is committed. */
  read<P extends Params, R>(statement: Statement<P, R>, params: P): Promise<R[]>;
  /** One write statement, atomic on its own: the rows it returned (RETURNING). */
  write<P extends Params, R>(statement: Statement<P, R>, params: P): Promise<R[]>;
  /** One write statement without RETURNING, atomic on its own: how many rows it changed. */
  changes<P extends Params>(statement: Statement<P, unknown>, params: P): Promise<number>;
  /** Statements in one transaction: all commit, or a throw from `work` rolls them all back. */
  transaction<T>(work: (tx: SqlTx) => Promise<T>): Promise<T>;
}

/** Statements inside one transaction (SqlExecutor.transaction). */
export interface SqlTx {
  readonly engine: Engine;
  rows<P extends Params, R>(statement: Statement<P, R>, params: P): Promise<R[]>;
  changes<P extends Params>(statement: Statement<P, unknown>, params: P): Promise<number>;
}

/** SQLite's statements run synchronously, inside a direct transaction or read (see DirectSqlite). */
export interface SqliteNow {
  rows<P extends Params, R>(statement: Statement<P, R>, params: P): R[];
  /** How many rows a statement without RETURNING changed. */
  changes<P extends Params>(statement: Statement<P, unknown>, params: P): number;
}

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

export function sqliteNow(direct: DirectSqlite): SqliteNow {
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

export function sqliteExecutor(db: Db, direct: DirectSqlite, now: SqliteNow = sqliteNow(direct)): SqlExecutor {
  return {
    engine: "sqlite",
    read: (statement, params) => direct.read(() => now.rows(statement, params)),
    write: (statement, params) => direct.transaction(() => now.rows(statement, params)),
    changes: (statement, params) => direct.transaction(() => now.changes(statement, params)),
    transaction: (work) => db.$transaction((tx) => work(txExecutor(tx, "sqlite"))),
  };
}

const pgValue = (value: unknown): unknown => (value instanceof Date ? pgTime(value) : value === undefined ? null : value);

export function pgExecutor(db: Db, lane: PgLane): SqlExecutor {
  const run = <P extends Params, R>(statement: Statement<P, R>, params: P): Promise<R[]> => {
    const { sql, bind } = statement.compiled("postgresql");
    return lane.query<R>(sql, bind(params).map(pgValue));
  };
  return {
    engine: "postgresql",
    read: run,
    write: run,
    changes: (statement, params) => {
      const { sql, bind } = statement.compiled("postgresql");
      return lane.execute(sql, bind(params).map(pgValue));
    },
    transaction: (work) => db.$transaction((tx) => work(txExecutor(tx, "postgresql"))),
  };
}

/** Raw rows through Prisma carry integers as BigInt. */
function numbersOf(row: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(row)) if (typeof value === "bigint") row[key] = Number(value);
  return row;
}

/** Statements run inside a Prisma interactive transaction (`tx`). */
export function txExecutor(tx: Tx, engine: Engine): SqlTx {
  const encode = engine === "sqlite" ? sqliteValue : pgValue;
  return {
    engine,
    rows: async <P extends Params, R>(statement: Statement<P, R>, params: P) => {
      const { sql, bind } = statement.compiled(engine);
      const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...bind(params).map(encode));
      return rows.map(numbersOf) as R[];
    },
    changes: (statement, params) => {
      const { sql, bind } = statement.compiled(engine);
      return tx.$executeRawUnsafe(sql, ...bind(params).map(encode));
    },
  };
}

/** What a store runs its statements on: the engine's executor, and SQLite's synchronous lane (null on PostgreSQL). */
export interface StoreLanes {
  readonly engine: Engine;
  readonly exec: SqlExecutor;
  readonly direct: DirectSqlite | null;
  readonly now: SqliteNow | null;
  readonly pg: PgLane | null;
}

export function storeLanes(db: Db): StoreLanes {
  const direct = directSqlite(db);
  if (direct) {
    const now = sqliteNow(direct);
    return { engine: "sqlite", exec: sqliteExecutor(db, direct, now), direct, now, pg: null };
  }
  const pg = directPg(db);
  if (!pg) throw new Error("The stores need SQLite's direct lane or PostgreSQL's pool.");
  return { engine: "postgresql", exec: pgExecutor(db, pg), direct: null, now: null, pg };
}
