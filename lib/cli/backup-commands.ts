import Database from "better-sqlite3";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { AppError } from "../protocol/errors";
import { engineOf } from "../server/store/db/engine";
import { sqliteFilePath } from "../server/store/db/engine";
import { backupFile, backupSqlite, restoreSqlite } from "../server/store/db/sqlite-backup";
import { readAnnouncement } from "../server/store/db/server-file";
import { isProcessAlive } from "./server-client";

const POSTGRES = "Parley backs up SQLite databases only: for PostgreSQL use pg_dump and pg_restore (docs/operations.md: Upgrading).";

function sqliteOf(databaseUrl: string): string {
  if (engineOf(databaseUrl) === "postgresql") throw new AppError("bad_request", POSTGRES);
  return sqliteFilePath(databaseUrl);
}

const size = (bytes: number) => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

/** `parley backup [FILE]`: SQLite's online backup reads a consistent state while the server goes on writing. */
export async function backupCommand(databaseUrl: string, target: string | undefined, print: (data: unknown, text: string) => void): Promise<number> {
  const file = sqliteOf(databaseUrl);
  if (!existsSync(file)) throw new AppError("unavailable", `No Parley database at ${file}. Pass --database.`);
  const destination = target ? path.resolve(target) : backupFile(file, null);
  if (existsSync(destination)) throw new AppError("bad_request", `${destination} already exists: name a new file.`);
  const db = new Database(file, { fileMustExist: true, timeout: 5_000 });
  try {
    const copy = await backupSqlite(db, destination);
    print({ database: file, ...copy }, `Backed up ${file} to ${copy.file} (${size(copy.bytes)}).\nRestore it with: npx parley restore ${copy.file}`);
  } finally {
    db.close();
  }
  return 0;
}

/** `parley restore FILE`: only with no server on the database, which would go on writing the file it replaced. */
export async function restoreCommand(databaseUrl: string, source: string | undefined, print: (data: unknown, text: string) => void): Promise<number> {
  const file = sqliteOf(databaseUrl);
  if (!source) throw new AppError("bad_request", "Usage: parley restore FILE");
  const server = readAnnouncement(databaseUrl);
  if (server && isProcessAlive(server.pid)) {
    throw new AppError("unavailable", `A Parley server (pid ${server.pid}, ${server.url}) is using ${file}. Stop it, then restore.`);
  }
  const backup = path.resolve(source);
  let restored: Awaited<ReturnType<typeof restoreSqlite>>;
  try {
    restored = await restoreSqlite(backup, file);
  } catch (err) {
    throw new AppError("bad_request", (err as Error).message);
  }
  const previous = restored.previous ? `\nThe database it replaced is kept as ${restored.previous}.` : "";
  print(
    { database: file, restored: backup, previous: restored.previous, bytes: statSync(file).size },
    `Restored ${file} from ${backup}.${previous}\nStart the server: it migrates the restored database if it is older.`,
  );
  return 0;
}
