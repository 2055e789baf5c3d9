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

/**
 * Set by scripts/test-pg.mjs: the name of this run's migrated template on PARLEY_TEST_PG_URL's server,
 * made on first use and dropped by the script after the run. Copying it (CREATE DATABASE … TEMPLATE)
 * gives each test the database migrating a new one would, several times faster.
 */
const PG_TEMPLATE = process.env.PARLEY_TEST_PG_TEMPLATE || null;

/** Creates a database named `<prefix>_<random>` on the server of `serverUrl`, migrated unless told not to; drop() removes it (FORCE: stray connections too). */
export async function createPgDatabase(serverUrl: string, prefix = "parley", { migrate = true }: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `${prefix.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${randomBytes(6).toString("hex")}`;
  const admin = async (sql: string) => void (await adminQuery(serverUrl, sql));
  const template = migrate ? await migratedTemplate(serverUrl) : null;
  await admin(template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`);
  const url = databaseUrl(serverUrl, name);
  if (migrate && !template) await migrateDatabase(url, MIGRATIONS);
  return { url, engine: "postgresql", drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function adminQuery(serverUrl: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** This process's promise of the run's template on `serverUrl`'s server; null when the run has none (or it lives on another server). */
let templateMade: Promise<string> | undefined;
function migratedTemplate(serverUrl: string): Promise<string | null> {
  if (!PG_TEMPLATE || !TEST_PG_URL || new URL(serverUrl).host !== new URL(TEST_PG_URL).host) return Promise.resolve(null);
  return (templateMade ??= makeTemplate(serverUrl, PG_TEMPLATE));
}

/**
 * Makes the template unless another test process did: one process at a time (an advisory lock),
 * migrated under a name of its own and renamed when complete, so a process killed half-way
 * leaves no template that looks whole.
 */
async function makeTemplate(serverUrl: string, template: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [template]);
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
    if (!rowCount) {
      const partial = `${template}_partial`;
      await client.query(`DROP DATABASE IF EXISTS "${partial}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${partial}"`);
      await migrateDatabase(databaseUrl(serverUrl, partial), MIGRATIONS);
      await client.query(`ALTER DATABASE "${partial}" RENAME TO "${template}"`);
    }
    return template;
  } finally {
    await client.end();
  }
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
