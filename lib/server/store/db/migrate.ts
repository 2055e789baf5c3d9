import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { engineOf, sqliteFilePath } from "./engine";
import { describePlan, MigrationError, pendingMigrations, readMigrations, type BookRow, type MigrationFile } from "./migration-book";
import { createPrivateFile, makeSqliteDataPrivate } from "./private-files";
import { backupBeforeMigration, backupsFolder } from "./sqlite-backup";

export { MigrationError } from "./migration-book";

export interface MigrationOptions {
  /** Told, before anything changes, what will be applied and where the backup went (start-up prints it). */
  log?: (line: string) => void;
}

export interface MigrationResult {
  applied: string[];
  /** SQLite: the copy taken before migrating an existing database. */
  backup?: string;
}

/**
 * Creates or migrates the database named by the URL (file: → SQLite, postgres(ql):// → PostgreSQL)
 * with the migrations under `migrationsRoot`: its `sqlite/` or `postgresql/` folder.
 */
export async function migrateDatabase(databaseUrl: string, migrationsRoot: string, options: MigrationOptions = {}): Promise<MigrationResult> {
  return engineOf(databaseUrl) === "postgresql" ? migratePostgres(databaseUrl, migrationsRoot, options) : migrateSqlite(databaseUrl, migrationsRoot, options);
}

/** The engine's own folder under a migrations root (prisma/migrations/sqlite), or the folder itself if it holds migrations directly. */
export function migrationsFolder(migrationsRoot: string, engine: "sqlite" | "postgresql"): string {
  const own = path.join(migrationsRoot, engine);
  return existsSync(own) ? own : migrationsRoot;
}

/** The key `prisma migrate deploy` locks too: the CLI and a starting server never migrate at once. */
const MIGRATION_LOCK_KEY = 72707369;

const BOOK_COLUMNS = `migration_name, checksum, finished_at, rolled_back_at, started_at, logs`;

/**
 * PostgreSQL: holds a session advisory lock for the whole run, so of two nodes starting at once
 * one migrates and the other waits, then finds nothing to do. The book is checked as on SQLite;
 * each pending migration runs in its own transaction together with its row in
 * `_prisma_migrations` (a failed one leaves nothing behind and stops start-up with its name).
 * PostgreSQL never deletes rows to drop a referenced table (it refuses, or drops the constraint
 * with CASCADE), so its migrations need no foreign-key guard. No backup: `pg_dump` (see docs/operations.md, Upgrading).
 */
export async function migratePostgres(databaseUrl: string, migrationsRoot: string, { log }: MigrationOptions = {}): Promise<MigrationResult> {
  const files = readMigrations(migrationsFolder(migrationsRoot, "postgresql"));
  // Loaded only for PostgreSQL: a SQLite start-up does without it.
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id" VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum" VARCHAR(64) NOT NULL,
        "finished_at" TIMESTAMPTZ,
        "migration_name" VARCHAR(255) NOT NULL,
        "logs" TEXT,
        "rolled_back_at" TIMESTAMPTZ,
        "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      )`);
      const where = `the PostgreSQL database ${new URL(databaseUrl).pathname.slice(1)}`;
      const { rows } = await client.query<BookRow>(`SELECT ${BOOK_COLUMNS} FROM "_prisma_migrations"`);
      const pending = pendingMigrations(files, rows, where);
      if (pending.length > 0) {
        log?.(describePlan(pending, where));
        if (pending.length < files.length) log?.("> Parley takes no copy of a PostgreSQL database: take one with pg_dump before an upgrade (docs/operations.md: Upgrading)");
      }
      for (const migration of pending) {
        const startedAt = new Date();
        await client.query("BEGIN");
        try {
          await client.query(migration.sql);
          await client.query(`INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, $4, 1)`, [
            randomUUID(),
            migration.checksum,
            migration.name,
            startedAt,
          ]);
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK").catch(() => {});
          throw failed(migration, err);
        }
      }
      return { applied: pending.map((m) => m.name) };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end();
  }
}

/**
 * Creates or migrates the SQLite database at start-up, applying the SQL that `prisma migrate dev`
 * wrote to prisma/migrations/sqlite. It keeps Prisma's own `_prisma_migrations` book, so the Prisma CLI
 * (`migrate status`, `migrate deploy`) agrees with it, and needs no schema engine at run time.
 *
 * Prisma rebuilds a SQLite table by creating its new form, copying, and dropping the old one. With
 * foreign keys enforced, that DROP deletes every row that references the table (ON DELETE CASCADE),
 * and `PRAGMA foreign_keys=OFF` inside a transaction does nothing: enforcement is turned off before
 * each migration's transaction begins and back on after it, and `foreign_key_check` must find
 * nothing before the commit. An existing database is backed up first.
 */
export async function migrateSqlite(databaseUrl: string, migrationsRoot: string, { log }: MigrationOptions = {}): Promise<MigrationResult> {
  const files = readMigrations(migrationsFolder(migrationsRoot, "sqlite"));
  const file = sqliteFilePath(databaseUrl);
  if (file !== ":memory:") {
    // The database holds the cookie-signing key: private before SQLite makes it, and fixed if it was not.
    const loosened = makeSqliteDataPrivate(file, backupsFolder(file));
    if (loosened.length > 0) log?.(`> Others could read the database's files; now its owner's alone: ${loosened.join(", ")}`);
    createPrivateFile(file);
  }
  const db = new Database(file, { timeout: 5_000 });
  try {
    db.pragma("journal_mode = WAL");
    db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" TEXT PRIMARY KEY NOT NULL,
      "checksum" TEXT NOT NULL,
      "finished_at" DATETIME,
      "migration_name" TEXT NOT NULL,
      "logs" TEXT,
      "rolled_back_at" DATETIME,
      "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
      "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
    )`);
    const book = db.prepare(`SELECT ${BOOK_COLUMNS} FROM _prisma_migrations`).all() as BookRow[];
    const pending = pendingMigrations(files, book, file);
    if (pending.length === 0) return { applied: [] };
    log?.(describePlan(pending, file));
    // A database that holds anything (a migration applied, or tables of its own) is copied first.
    let backup: string | undefined;
    if (file !== ":memory:" && holdsData(db)) {
      backup = await backupBeforeMigration(db, file, pending[0]!.name);
      log?.(`> Backed up ${file} to ${backup} (the last five such copies are kept)`);
    }
    db.pragma("foreign_keys = OFF");
    const applied: string[] = [];
    try {
      for (const migration of pending) if (applySqliteMigration(db, migration, brokenKeys(db))) applied.push(migration.name);
    } finally {
      db.pragma("foreign_keys = ON");
    }
    return { applied, backup };
  } finally {
    db.close();
  }
}

function holdsData(db: Database.Database): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations' LIMIT 1`).get() !== undefined;
}

type BrokenKey = { table: string; rowid: number | null; parent: string };

const brokenKeys = (db: Database.Database) => db.pragma("foreign_key_check") as BrokenKey[];
/** The link a broken key breaks: its table and the table it points at. */
const linkOf = (key: BrokenKey) => `${key.table}→${key.parent}`;
const countByLink = (keys: readonly BrokenKey[]) => {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(linkOf(key), (counts.get(linkOf(key)) ?? 0) + 1);
  return counts;
};

/**
 * One migration and its book row in one IMMEDIATE transaction, committed only if it broke no
 * foreign key: rows the database already held broken (written while keys were not enforced) are
 * counted per link beforehand and are not the migration's doing. False when another process
 * applied it first.
 */
function applySqliteMigration(db: Database.Database, migration: MigrationFile, brokenBefore: readonly BrokenKey[]): boolean {
  const startedAt = new Date().toISOString();
  const before = countByLink(brokenBefore);
  try {
    return db
      .transaction(() => {
        // Another process starting on the same file may have applied it while this one read the book or took its backup.
        const done = db.prepare(`SELECT 1 FROM _prisma_migrations WHERE migration_name = ? AND finished_at IS NOT NULL AND rolled_back_at IS NULL`).get(migration.name);
        if (done) return false;
        db.exec(migration.sql);
        const after = brokenKeys(db);
        const grew = [...countByLink(after)].filter(([link, n]) => n > (before.get(link) ?? 0)).map(([link]) => link);
        const broken = after.filter((key) => grew.includes(linkOf(key)));
        if (broken.length > 0) {
          const rows = broken.slice(0, 10).map((v) => `${v.table} row ${v.rowid ?? "?"} → ${v.parent}`);
          throw new MigrationError(`it would leave ${broken.length} row(s) pointing at rows that do not exist (${rows.join("; ")}${broken.length > 10 ? "; …" : ""}); nothing was changed`);
        }
        db.prepare(`INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`).run(
          randomUUID(),
          migration.checksum,
          new Date().toISOString(),
          migration.name,
          startedAt,
        );
        return true;
      })
      .immediate();
  } catch (err) {
    throw failed(migration, err);
  }
}

const failed = (migration: MigrationFile, err: unknown) => new MigrationError(`Migration ${migration.name} failed and was rolled back: ${(err as Error).message}`, { cause: err });
