import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { createPrivateFile } from "./private-files";

/** How many backups taken before migrations are kept per database. */
export const KEEP_MIGRATION_BACKUPS = 5;

const stamp = (at: Date) => at.toISOString().replace(/[:.]/g, "-");
const baseName = (dbFile: string) => path.basename(dbFile).replace(/\.[^.]*$/, "");

/** What SQLite's quick_check finds wrong with a database, or null when it is sound. */
function damageOf(db: Database.Database): string | null {
  const check = db.pragma("quick_check", { simple: true });
  return check === "ok" ? null : String(check);
}

/** `<folder of the database>/backups`: `data/backups` for the default `data/parley.db`. */
export const backupsFolder = (dbFile: string) => path.join(path.dirname(dbFile), "backups");

/** `data/backups/<name>-<timestamp>[-<label>].db`. */
export function backupFile(dbFile: string, label: string | null, at = new Date()): string {
  return path.join(backupsFolder(dbFile), `${baseName(dbFile)}-${stamp(at)}${label ? `-${label}` : ""}.db`);
}

/**
 * A consistent copy of an open database through SQLite's online backup (what other connections
 * commit meanwhile is either in it or not, never half), checked before it is called a backup.
 * Written beside its destination first and renamed, so a copy cut short never bears the name.
 * The copy is one file, in rollback-journal mode, with no -wal or -shm beside it, and mode 0600.
 */
export async function backupSqlite(source: Database.Database, destination: string): Promise<{ file: string; bytes: number }> {
  // Its own name: two processes starting in the same millisecond back up to the same destination at once.
  const partial = `${destination}.${process.pid}-${randomBytes(4).toString("hex")}.partial`;
  try {
    // A copy holds the cookie-signing key too: 0600 (in a 0700 folder, if it makes one) before a byte is written.
    createPrivateFile(partial);
    await source.backup(partial);
    const copy = new Database(partial, { fileMustExist: true });
    try {
      // One self-contained file: the copy leaves WAL mode (a server opening it goes back to WAL).
      copy.pragma("journal_mode = DELETE");
      const damage = damageOf(copy);
      if (damage) throw new Error(`the copy failed SQLite's quick_check: ${damage}`);
    } finally {
      copy.close();
    }
    renameSync(partial, destination);
  } catch (err) {
    rmSync(partial, { force: true });
    throw new Error(`Could not back up ${source.name} to ${destination}: ${(err as Error).message}`, { cause: err });
  }
  return { file: destination, bytes: statSync(destination).size };
}

/** Backs the database up before `migration` is applied to it, keeping the last KEEP_MIGRATION_BACKUPS such copies. */
export async function backupBeforeMigration(source: Database.Database, dbFile: string, migration: string): Promise<string> {
  const { file } = await backupSqlite(source, backupFile(dbFile, `before-${migration}`));
  // This database's copies only (not those of `parley-test.db` beside `parley.db`), and not the one a restore left.
  const escaped = baseName(dbFile).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const ours = new RegExp(`^${escaped}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z-before-(?!restore\\.db$).+\\.db$`);
  const mine = readdirSync(backupsFolder(dbFile))
    .filter((name) => ours.test(name))
    .sort();
  for (const old of mine.slice(0, Math.max(0, mine.length - KEEP_MIGRATION_BACKUPS))) rmSync(path.join(backupsFolder(dbFile), old), { force: true });
  return file;
}

/** Whether a file is a SQLite database that Parley made (it has Prisma's migration book), and sound. */
export function checkParleyDatabase(file: string): { ok: true; migrations: number } | { ok: false; reason: string } {
  if (!existsSync(file)) return { ok: false, reason: `${file} does not exist` };
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const damage = damageOf(db);
    if (damage) return { ok: false, reason: `${file} is damaged (quick_check: ${damage})` };
    const book = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`).get();
    if (!book) return { ok: false, reason: `${file} is not a Parley database (it has no _prisma_migrations table)` };
    const { n } = db.prepare(`SELECT count(*) AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`).get() as { n: number };
    return { ok: true, migrations: n };
  } catch (err) {
    return { ok: false, reason: `${file} is not a SQLite database (${(err as Error).message})` };
  } finally {
    db?.close();
  }
}

/**
 * Puts a backup in the database's place: the current database is backed up first
 * (`…-before-restore.db`), then the backup is copied beside it and renamed over it, with the old
 * write-ahead log removed so none of it is replayed onto the restored file. The caller makes sure
 * no server uses the database.
 */
export async function restoreSqlite(backup: string, dbFile: string): Promise<{ previous: string | null }> {
  const checked = checkParleyDatabase(backup);
  if (!checked.ok) throw new Error(`Not restored: ${checked.reason}.`);
  let previous: string | null = null;
  if (existsSync(dbFile)) {
    const current = new Database(dbFile, { fileMustExist: true });
    try {
      previous = (await backupSqlite(current, backupFile(dbFile, "before-restore"))).file;
    } finally {
      current.close();
    }
  }
  const source = new Database(backup, { readonly: true, fileMustExist: true });
  const incoming = `${dbFile}.restoring`;
  try {
    await backupSqlite(source, incoming);
  } finally {
    source.close();
  }
  for (const suffix of ["-wal", "-shm", "-journal"]) rmSync(`${dbFile}${suffix}`, { force: true });
  renameSync(incoming, dbFile);
  return { previous };
}
