import Database from "better-sqlite3";
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Creates or migrates the SQLite database at start-up, applying the SQL that `prisma migrate dev`
 * wrote to prisma/migrations. It keeps Prisma's own `_prisma_migrations` book, so the Prisma CLI
 * (`migrate status`, `migrate deploy`) agrees with it, and needs no schema engine at run time.
 */
export function migrateSqlite(databaseUrl: string, migrationsDir: string): { applied: string[] } {
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
