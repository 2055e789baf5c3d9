import { sql, type RawBuilder } from "kysely";
import type { Engine } from "./db/engine";

/**
 * The database's clock, as fragments of statements, where several nodes write and compare times
 * (leases): a node's own clock may run ahead of or behind the others', the database's is the same
 * for all.
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
const UTC_NOW = sql`(statement_timestamp() AT TIME ZONE 'UTC')`;
const SQLITE_FORMAT = sql.raw(`'%Y-%m-%dT%H:%M:%f+00:00'`);

/** The database's time now. */
export const dbNow = (engine: Engine): RawBuilder<Date> => (engine === "postgresql" ? sql<Date>`${UTC_NOW}` : sql<Date>`strftime(${SQLITE_FORMAT}, 'now')`);

/** The database's time now plus `ms` milliseconds (an integer, negative for the past; a statement's parameter). */
export const dbNowPlusMs = (engine: Engine, ms: number): RawBuilder<Date> =>
  engine === "postgresql" ? sql<Date>`(${UTC_NOW} + CAST(${ms} AS INTEGER) * INTERVAL '1 millisecond')` : sql<Date>`strftime(${SQLITE_FORMAT}, 'now', (${ms} / 1000.0) || ' seconds')`;
