/** How rows read or written on the direct lane (raw better-sqlite3) match what Prisma stores in SQLite. */

/** A DateTime as Prisma's better-sqlite3 adapter stores it (ISO 8601 with "+00:00"). */
export const sqliteTime = (d: Date): string => d.toISOString().replace("Z", "+00:00");
