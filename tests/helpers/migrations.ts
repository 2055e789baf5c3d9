import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readMigrations } from "../../lib/server/store/db/migration-book";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../prisma/migrations");

/** The names of an engine's migrations, oldest first. */
export const migrationNames = (engine: "sqlite" | "postgresql") => readMigrations(path.join(MIGRATIONS, engine)).map((m) => m.name);

/**
 * A migrations root at `root` (made anew, holding `<engine>/`) with the first `count` of the
 * engine's migrations, then `extra` ones (name → SQL): a database at an earlier schema, or one a
 * later migration meets.
 */
export function migrationsPrefix(root: string, engine: "sqlite" | "postgresql", count: number, extra: Record<string, string> = {}): string {
  rmSync(root, { recursive: true, force: true });
  const folder = path.join(root, engine);
  mkdirSync(folder, { recursive: true });
  for (const name of migrationNames(engine).slice(0, count)) cpSync(path.join(MIGRATIONS, engine, name), path.join(folder, name), { recursive: true });
  for (const [name, sql] of Object.entries(extra)) {
    mkdirSync(path.join(folder, name), { recursive: true });
    writeFileSync(path.join(folder, name, "migration.sql"), sql);
  }
  return root;
}
