import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** The database holds the cookie-signing key: its files are its owner's alone, and so is their folder. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_FOLDER_MODE = 0o700;

/** A SQLite database's own files beside it: what SQLite writes while it runs (and a rollback journal). */
export const SQLITE_COMPANIONS = ["-wal", "-shm", "-journal"] as const;

/** Makes a folder and its missing parents with mode 0700 (a folder that exists keeps its mode). */
export function makePrivateFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
}

/**
 * Creates `file` empty with mode 0600 if it does not exist, before SQLite opens it: SQLite would
 * make it 0644, and it gives a database's -wal, -shm and -journal the database's own mode.
 * An empty file is an empty SQLite database.
 */
export function createPrivateFile(file: string): void {
  makePrivateFolder(path.dirname(file));
  try {
    closeSync(openSync(file, "wx", PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}

const loose = (mode: number) => (mode & 0o077) !== 0;
const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/** Sets `mode` on a file or folder that others may read or enter; says what it changed, or null. */
function tighten(file: string, mode: number): string | null {
  if (!existsSync(file)) return null;
  const before = statSync(file).mode;
  if (!loose(before)) return null;
  chmodSync(file, mode);
  return `${file} (${octal(before)} → ${octal(mode)})`;
}

/** Whether everything in the folder is the database's own: its files (`parley.db`, `parley.db-wal`, `parley.db.token` …) and its backups. */
function holdsOnlyDatabase(folder: string, dbFile: string, backups: string): boolean {
  if (!existsSync(folder)) return false;
  const base = path.basename(dbFile);
  return readdirSync(folder).every((name) => name.startsWith(base) || path.join(folder, name) === path.resolve(backups));
}

/**
 * An existing SQLite database made private: its folder 0700 when it holds nothing else; the database, its -wal, -shm and
 * -journal, and its backups (the `backups` folder beside it) 0600. Returns what was looser.
 */
export function makeSqliteDataPrivate(dbFile: string, backups: string): string[] {
  const folder = path.dirname(dbFile);
  // A folder shared with other things (a project folder, /tmp) is not ours to close: its files are.
  const changed = [holdsOnlyDatabase(folder, dbFile, backups) ? tighten(folder, PRIVATE_FOLDER_MODE) : null, tighten(dbFile, PRIVATE_FILE_MODE)];
  for (const suffix of SQLITE_COMPANIONS) changed.push(tighten(`${dbFile}${suffix}`, PRIVATE_FILE_MODE));
  if (existsSync(backups)) {
    changed.push(tighten(backups, PRIVATE_FOLDER_MODE));
    for (const name of readdirSync(backups)) {
      const file = path.join(backups, name);
      if (statSync(file).isFile()) changed.push(tighten(file, PRIVATE_FILE_MODE));
    }
  }
  return changed.filter((c): c is string => c !== null);
}
