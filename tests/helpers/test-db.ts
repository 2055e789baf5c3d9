import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { migrateDatabase } from "../../lib/server/store/db/migrate";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MIGRATIONS = path.join(root, "prisma/migrations");

/**
 * A PostgreSQL server URL (any database on it, e.g. postgresql://postgres@127.0.0.1:5432/test):
 * when set, the store suites run on PostgreSQL, each test on a fresh database it drops afterwards.
 */
export const TEST_PG_URL = process.env.PARLEY_TEST_PG_URL || null;

export interface TestDatabase {
  url: string;
  engine: "sqlite" | "postgresql";
  /** Removes the database (a SQLite temp folder, a PostgreSQL database). Close clients first. */
  drop(): Promise<void>;
}

/** A fresh, migrated database: a temp SQLite file, or a new database on PARLEY_TEST_PG_URL's server. */
export async function createTestDatabase(prefix = "parley"): Promise<TestDatabase> {
  if (TEST_PG_URL) return createPgDatabase(TEST_PG_URL, prefix);
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  const url = `file:${path.join(dir, "test.db")}`;
  await migrateDatabase(url, MIGRATIONS);
  return { url, engine: "sqlite", drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** Creates a database named `<prefix>_<random>` on the server of `serverUrl`, migrated unless told not to; drop() removes it (FORCE: stray connections too). */
export async function createPgDatabase(serverUrl: string, prefix = "parley", { migrate = true }: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `${prefix.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${randomBytes(6).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  if (migrate) await migrateDatabase(url.toString(), MIGRATIONS);
  return { url: url.toString(), engine: "postgresql", drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** Whether a PostgreSQL server answers at `url` (within a second); the reason when it does not. */
export async function pgReachable(url: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: (err as Error).message || String(err) };
  } finally {
    await client.end().catch(() => {});
  }
}
