import { directPg, type Db, type Engine, type Tx } from "./client";
import { pgPlaceholders } from "./pg-lane";

/**
 * Statements written once for both engines, with `?` parameters, run through Prisma's raw queries
 * (inside a transaction when given one). They read the time from the database's clock (`now`,
 * `nowPlusMs`) where several nodes write and compare times (leases): a node's own clock may run
 * ahead of or behind the others', the database's is the same for all.
 *
 * - PostgreSQL: `statement_timestamp()`, the time the statement began. One value for the whole
 *   statement, so a comparison and the time it writes agree (`clock_timestamp()` moves while it
 *   runs), and not the start of an enclosing transaction, as `now()` is (a lease taken late in a
 *   long transaction would start in the past). Read as UTC wall time: Prisma stores a DateTime as
 *   `timestamp(3)` without a zone, in UTC.
 * - SQLite: `'now'`, which SQLite keeps the same for the whole statement, formatted as Prisma's
 *   better-sqlite3 adapter stores a DateTime (ISO 8601 with "+00:00"), so that text comparison
 *   orders it with the stored times.
 */
export interface RawSql {
  readonly engine: Engine;
  /** SQL: the database's time now. */
  readonly now: string;
  /** SQL: the database's time now plus the milliseconds (an integer, negative for the past) of one `?` parameter. */
  readonly nowPlusMs: string;
  /** The rows of one statement (`?` parameters), integers as numbers on both engines. */
  query<T = Record<string, unknown>>(sql: string, values: unknown[], tx?: Tx): Promise<T[]>;
  /** How many rows one statement changed. */
  execute(sql: string, values: unknown[], tx?: Tx): Promise<number>;
}

const UTC_NOW = `(statement_timestamp() AT TIME ZONE 'UTC')`;
const SQLITE_FORMAT = `'%Y-%m-%dT%H:%M:%f+00:00'`;

const FRAGMENTS: Record<Engine, Pick<RawSql, "now" | "nowPlusMs">> = {
  postgresql: { now: UTC_NOW, nowPlusMs: `(${UTC_NOW} + CAST(? AS INTEGER) * INTERVAL '1 millisecond')` },
  sqlite: { now: `strftime(${SQLITE_FORMAT}, 'now')`, nowPlusMs: `strftime(${SQLITE_FORMAT}, 'now', (? / 1000.0) || ' seconds')` },
};

/** SQLite's raw rows carry integers as BigInt. */
const numbers = (row: Record<string, unknown>) => {
  for (const [key, value] of Object.entries(row)) if (typeof value === "bigint") row[key] = Number(value);
  return row;
};

export function rawSql(db: Db): RawSql {
  const engine: Engine = directPg(db) ? "postgresql" : "sqlite";
  const texts = new Map<string, string>();
  const text = (sql: string) => {
    if (engine === "sqlite") return sql;
    let pg = texts.get(sql);
    if (!pg) texts.set(sql, (pg = pgPlaceholders(sql)));
    return pg;
  };
  return {
    engine,
    ...FRAGMENTS[engine],
    async query<T>(sql: string, values: unknown[], tx?: Tx): Promise<T[]> {
      const rows = await (tx ?? db).$queryRawUnsafe<Record<string, unknown>[]>(text(sql), ...values);
      return rows.map(numbers) as T[];
    },
    execute: (sql, values, tx) => (tx ?? db).$executeRawUnsafe(text(sql), ...values),
  };
}
