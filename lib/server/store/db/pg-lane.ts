import pg from "pg";
import type { StatementObserver } from "./sqlite-connection";

/** pg's type id of `timestamp without time zone`, the column type of Prisma's DateTime on PostgreSQL. */
const TIMESTAMP_OID = 1114;

/** Prisma writes DateTime as UTC wall time without a zone: read it back as UTC, whatever the process's zone. */
const utcTimestamp = (text: string) => new Date(`${text.replace(" ", "T")}Z`);

/** pg's type id of `bigint` (what COUNT returns): read as a number, as SQLite's integers are (counts stay far below 2^53). */
const INT8_OID = 20;

const OWN_PARSERS = new Map<number, (text: string) => unknown>([
  [TIMESTAMP_OID, utcTimestamp],
  [INT8_OID, Number],
]);

const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    (format !== "binary" && OWN_PARSERS.get(oid)) || (pg.types.getTypeParser(oid, format) as (text: string) => unknown)) as typeof pg.types.getTypeParser,
};

/** Statements on the pool (each atomic on its own), or on one connection inside a transaction (`on`). */
export interface PgLane {
  /** Rows of one statement (`$1`… parameters; dates as `pgTime` in sql-executor). */
  query<T = Record<string, unknown>>(text: string, values: unknown[]): Promise<T[]>;
  /** How many rows one statement changed. */
  execute(text: string, values: unknown[]): Promise<number>;
  /** The same statements on one connection (a transaction's). */
  on(client: pg.PoolClient): PgLane;
}

export function createPgLane(pool: pg.Pool, observer?: StatementObserver): PgLane {
  // Named, each statement is parsed and planned once per connection, then only bound and run.
  const names = new Map<string, string>();
  const nameOf = (text: string) => names.get(text) ?? (names.set(text, `parley_${names.size + 1}`), names.get(text)!);
  const laneOn = (target: pg.Pool | pg.PoolClient): PgLane => {
    const run = (text: string, values: unknown[], kind: "read" | "write") => {
      observer?.query(kind);
      return target.query({ name: nameOf(text), text, values, types });
    };
    return {
      query: async <T>(text: string, values: unknown[]) => (await run(text, values, /^\s*SELECT\b/i.test(text) ? "read" : "write")).rows as T[],
      execute: async (text, values) => (await run(text, values, "write")).rowCount ?? 0,
      on: laneOn,
    };
  };
  return laneOn(pool);
}
