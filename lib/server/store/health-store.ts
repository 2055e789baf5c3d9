import type { SqlExecutor, SqlReader } from "./sql-executor";
import { pgMigrated, ping } from "./health-statements";

/** `SELECT 1`: resolves when the database answers (its rows are not looked at). */
export const pingDatabase = async ({ rows }: SqlReader): Promise<void> => void (await rows(ping, {}));

/** PostgreSQL: whether Parley's tables are there (the database was migrated). */
export const isPgMigrated = async (exec: SqlExecutor): Promise<boolean> => Boolean((await exec.rows(pgMigrated, {}))[0]?.migrated);
