/** How rows read or written on the direct lane (raw better-sqlite3) match what Prisma stores in SQLite. */

/** A DateTime as Prisma's better-sqlite3 adapter stores it (ISO 8601 with "+00:00"). */
export const sqliteTime = (d: Date): string => d.toISOString().replace("Z", "+00:00");

/** A stored DateTime back to a Date (null stays null). */
export const fromSqliteTime = (value: unknown): Date | null => (value === null || value === undefined ? null : new Date(value as string | number));

/** A stored Boolean (0 or 1) back to a boolean. */
export const fromSqliteBoolean = (value: unknown): boolean => value === 1 || value === true;
