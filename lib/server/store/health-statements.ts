import { sql } from "kysely";
import { statement } from "./typed-sql";

/** `SELECT 1`: whether the database answers. */
export const ping = statement((q) => q.selectNoFrom(sql<number>`1`.as("ok")));

/** PostgreSQL: whether Parley's tables are there (the database was migrated). */
export const pgMigrated = statement((q) => q.selectNoFrom(sql<boolean>`to_regclass('"ChatSession"') IS NOT NULL`.as("migrated")));
