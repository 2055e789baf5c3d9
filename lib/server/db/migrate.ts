import Database from "better-sqlite3";
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { engineOf } from "./engine";

/**
 * Creates or migrates the database named by the URL (file: → SQLite, postgres(ql):// → PostgreSQL)
 * with the migrations under `migrationsRoot`: its `sqlite/` or `postgresql/` folder.
 */
export async function migrateDatabase(databaseUrl: string, migrationsRoot: string): Promise<{ applied: string[] }> {
  return engineOf(databaseUrl) === "postgresql" ? migratePostgres(databaseUrl, migrationsRoot) : migrateSqlite(databaseUrl, migrationsRoot);
}

/** The engine's own folder under a migrations root (prisma/migrations/sqlite), or the folder itself if it holds migrations directly. */
export function migrationsFolder(migrationsRoot: string, engine: "sqlite" | "postgresql"): string {
  const own = path.join(migrationsRoot, engine);
  return existsSync(own) ? own : migrationsRoot;
}

/** The key `prisma migrate deploy` locks too: the CLI and a starting server never migrate at once. */
const MIGRATION_LOCK_KEY = 72707369;

/**
 * PostgreSQL: the same as migrateSqlite, through pg. Holds a session advisory lock for the whole
 * run, so of two nodes starting at once one migrates and the other waits, then finds nothing to do.
 * Each pending migration runs in its own transaction together with its row in `_prisma_migrations`
 * (created with the column types Prisma uses on PostgreSQL).
 */
export async function migratePostgres(databaseUrl: string, migrationsRoot: string): Promise<{ applied: string[] }> {
  const dir = migrationsFolder(migrationsRoot, "postgresql");
  const names = listMigrations(dir);
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
      const { rows } = await client.query<{ migration_name: string }>(
        `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      );
      const done = new Set(rows.map((row) => row.migration_name));
      const applied: string[] = [];
      for (const name of names) {
        if (done.has(name)) continue;
        const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
        const startedAt = new Date();
        await client.query("BEGIN");
        try {
          await client.query(sql);
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, $4, 1)`,
            [randomUUID(), createHash("sha256").update(sql).digest("hex"), name, startedAt],
          );
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK").catch(() => {});
          throw new Error(`Migration ${name} failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(name);
      }
      return { applied };
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
 */
export function migrateSqlite(databaseUrl: string, migrationsRoot: string): { applied: string[] } {
  const migrationsDir = migrationsFolder(migrationsRoot, "sqlite");
  const file = sqliteFilePath(databaseUrl);
  if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true });
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
    const done = new Set(
      db
        .prepare(`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`)
        .all()
        .map((row) => (row as { migration_name: string }).migration_name),
    );
    const applied: string[] = [];
    for (const name of listMigrations(migrationsDir)) {
      if (done.has(name)) continue;
      const sql = readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8");
      const startedAt = new Date().toISOString();
      db.transaction(() => {
        db.exec(sql);
        db.prepare(
          `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`,
        ).run(randomUUID(), createHash("sha256").update(sql).digest("hex"), new Date().toISOString(), name, startedAt);
      })();
      applied.push(name);
    }
    return { applied };
  } finally {
    db.close();
  }
}

function listMigrations(dir: string): string[] {
  if (!existsSync(dir)) throw new Error(`No migrations folder at ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort();
}

export function sqliteFilePath(databaseUrl: string): string {
  if (!databaseUrl.startsWith("file:")) {
    throw new Error(`DATABASE_URL must be a SQLite file: URL (got "${databaseUrl.split(":")[0]}:")`);
  }
  const raw = databaseUrl.slice("file:".length).split("?")[0]!;
  return raw === ":memory:" ? raw : path.resolve(raw);
}
