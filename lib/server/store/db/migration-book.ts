import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** One migration folder's SQL, as `prisma migrate dev` wrote it. */
export interface MigrationFile {
  name: string;
  sql: string;
  /** sha256 of the file, hex: the checksum Prisma records in `_prisma_migrations`. */
  checksum: string;
}

/** A row of `_prisma_migrations`, the book Prisma and this runner keep alike. */
export interface BookRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
  started_at?: unknown;
  logs?: string | null;
}

/** Why start-up stops before touching the database's schema. */
export class MigrationError extends Error {
  override readonly name = "MigrationError";
}

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/** The migrations in a folder, oldest first (their names begin with a timestamp). */
export function readMigrations(dir: string): MigrationFile[] {
  if (!existsSync(dir)) throw new MigrationError(`No migrations folder at ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const bytes = readFileSync(path.join(dir, name, "migration.sql"));
      return { name, sql: bytes.toString("utf8"), checksum: sha256(bytes) };
    });
}

/** A checkout with Windows line endings holds the same migration: its checksum is compared with LF endings too. */
function sameMigration(file: MigrationFile, recorded: string): boolean {
  return recorded === file.checksum || recorded === sha256(file.sql.replace(/\r\n/g, "\n"));
}

/**
 * What is left to apply, after checking the book against the files as `prisma migrate deploy`
 * does: a migration that failed half-way, an applied migration whose file changed since, or one
 * this version does not know (a newer Parley migrated the database) stops start-up, naming it.
 */
export function pendingMigrations(files: readonly MigrationFile[], book: readonly BookRow[], where: string): MigrationFile[] {
  const failed = book.filter((row) => row.finished_at == null && row.rolled_back_at == null);
  if (failed.length > 0) {
    const names = failed.map((row) => row.migration_name).join(", ");
    throw new MigrationError(
      `Migration ${names} failed half-way in ${where} and was never finished${failed[0]!.logs ? `: ${failed[0]!.logs.trim().split("\n")[0]}` : ""}. ` +
        `Restore the backup taken before it (npx parley restore <file>), or repair the database and mark it with \`npm run prisma -- migrate resolve --rolled-back ${failed[0]!.migration_name}\`, then start again.`,
    );
  }
  const applied = new Map(book.filter((row) => row.finished_at != null && row.rolled_back_at == null).map((row) => [row.migration_name, row]));
  const known = new Set(files.map((file) => file.name));
  const unknown = [...applied.keys()].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new MigrationError(`${where} was migrated by a newer Parley (${unknown.join(", ")} is not in this version's migrations). Start the newer version, or restore a backup made before it.`);
  }
  const changed = files.filter((file) => applied.has(file.name) && !sameMigration(file, applied.get(file.name)!.checksum));
  if (changed.length > 0) {
    throw new MigrationError(
      `The migration ${changed.map((file) => file.name).join(", ")} was modified after it was applied to ${where}. ` +
        "An applied migration must never change: restore its file as it was, and put the change in a new migration.",
    );
  }
  return files.filter((file) => !applied.has(file.name));
}

/** The start-up line that says what will be applied. */
export const describePlan = (pending: readonly MigrationFile[], where: string) => `> Migrating ${where}: ${pending.length} migration(s) to apply: ${pending.map((m) => m.name).join(", ")}`;
