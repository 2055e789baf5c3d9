import { spawnSync } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPgDatabase, pgReachable, type TestDatabase } from "../../../../tests/helpers/test-db";
import { migrateDatabase } from "./migrate";

const root = path.resolve(import.meta.dirname, "../../../..");
const PG_URL = process.env.PARLEY_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/test";
const reachable = await pgReachable(PG_URL);
if (!reachable.ok) console.warn(`[skip] migrate.pg.test.ts: no PostgreSQL at ${PG_URL} (${reachable.reason}); set PARLEY_TEST_PG_URL`);

describe.skipIf(!reachable.ok)("migrateDatabase on PostgreSQL", () => {
  const made: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of made) await db.drop();
  });

  it("two nodes starting at once: one applies the migrations, the other waits and finds them done; prisma migrate status agrees", async () => {
    const db = await createPgDatabase(PG_URL, "parley_mig", { migrate: false });
    made.push(db);
    const migrations = path.join(root, "prisma/migrations");
    const [a, b] = await Promise.all([migrateDatabase(db.url, migrations), migrateDatabase(db.url, migrations)]);
    const applied = [a.applied, b.applied].sort((x, y) => y.length - x.length);
    expect(applied[0]!.length).toBeGreaterThan(0);
    expect(applied[1]).toEqual([]);
    expect((await migrateDatabase(db.url, migrations)).applied).toEqual([]);

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query(`SELECT migration_name, finished_at, applied_steps_count FROM "_prisma_migrations"`);
    await client.end();
    expect(rows.map((r) => r.migration_name).sort()).toEqual(applied[0]!.slice().sort());

    const status = spawnSync(process.execPath, ["scripts/prisma.mjs", "migrate", "status"], { cwd: root, env: { ...process.env, DATABASE_URL: db.url }, encoding: "utf8" });
    expect(status.stdout + status.stderr).toContain("Database schema is up to date!");
    expect(status.status).toBe(0);
  });
});

describe.skipIf(!reachable.ok)("the migration book on PostgreSQL", () => {
  const made: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of made) await db.drop();
  });
  const migrations = path.join(root, "prisma/migrations");

  async function withBook(sql: string) {
    const db = await createPgDatabase(PG_URL, "parley_book", { migrate: false });
    made.push(db);
    await migrateDatabase(db.url, migrations);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(sql);
    await client.end();
    return db;
  }

  it("stops start-up on an applied migration whose file changed", async () => {
    const db = await withBook(`UPDATE "_prisma_migrations" SET checksum = 'changed' WHERE migration_name LIKE '%init'`);
    await expect(migrateDatabase(db.url, migrations)).rejects.toThrow(/The migration \d+_init was modified after it was applied to the PostgreSQL database parley_book_/);
  });

  it("stops start-up on a migration prisma migrate deploy left failed half-way", async () => {
    const db = await withBook(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, logs) VALUES ('x', 'c', '20990101000000_half', 'column "x" does not exist')`);
    await expect(migrateDatabase(db.url, migrations)).rejects.toThrow(/Migration 20990101000000_half failed half-way in the PostgreSQL database .*: column "x" does not exist\. Restore/);
  });

  it("prints what it will apply before applying it", async () => {
    const db = await createPgDatabase(PG_URL, "parley_plan", { migrate: false });
    made.push(db);
    const lines: string[] = [];
    const { applied } = await migrateDatabase(db.url, migrations, { log: (line) => lines.push(line) });
    expect(lines).toEqual([`> Migrating the PostgreSQL database ${new URL(db.url).pathname.slice(1)}: ${applied.length} migration(s) to apply: ${applied.join(", ")}`]);
  });
});
