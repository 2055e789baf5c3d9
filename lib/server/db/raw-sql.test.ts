import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";
import { closeDb, createDb, type Db } from "./client";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";
import { rawSql, type RawSql } from "./raw-sql";

// The database's clock as leases use it, on whichever engine the suite runs (SQLite, or
// PostgreSQL with PARLEY_TEST_PG_URL, whose sessions here run in a time zone far from UTC).
let testDb: TestDatabase;
let db: Db;
let fixture: FixtureDb;
let sql: RawSql;

beforeEach(async () => {
  testDb = await createTestDatabase("parley_rawsql");
  if (testDb.engine === "postgresql") {
    const client = new pg.Client({ connectionString: testDb.url });
    await client.connect();
    await client.query(`ALTER DATABASE "${new URL(testDb.url).pathname.slice(1)}" SET timezone TO 'Pacific/Kiritimati'`);
    await client.end();
  }
  db = await createDb(testDb.url);
  fixture = await openFixtureDb(testDb.url);
  sql = rawSql(db);
});

afterEach(async () => {
  await fixture.$disconnect();
  await closeDb(db);
  await testDb.drop();
});

describe("the database's clock in statements written once for both engines", () => {
  it("a time written from the database's now reads back through Prisma as the current UTC instant, and compares with now in SQL", async () => {
    const before = Date.now();
    await sql.execute(`INSERT INTO "NodeLease" ("name", "holder", "until", "epoch") VALUES (?, ?, ${sql.nowPlusMs}, 1)`, ["job", "node", 60_000]);
    const { until } = (await fixture.nodeLease.findUnique({ where: { name: "job" } }))!;
    // Within a few seconds of this process's clock (the same machine), not hours off.
    expect(until.getTime()).toBeGreaterThan(before + 60_000 - 5_000);
    expect(until.getTime()).toBeLessThan(Date.now() + 60_000 + 5_000);
    const [row] = await sql.query<{ live: number; lapsedIfPast: number }>(
      `SELECT CASE WHEN "until" > ${sql.now} THEN 1 ELSE 0 END AS "live", CASE WHEN "until" < ${sql.nowPlusMs} THEN 1 ELSE 0 END AS "lapsedIfPast" FROM "NodeLease" WHERE "name" = ?`,
      [61_000, "job"],
    );
    expect(row).toEqual({ live: 1, lapsedIfPast: 1 });
  });

  it("a time set in the past (a lease let go) is before the database's now", async () => {
    await sql.execute(`INSERT INTO "NodeLease" ("name", "holder", "until", "epoch") VALUES (?, ?, ${sql.nowPlusMs}, 1)`, ["job", "node", -1]);
    const [row] = await sql.query<{ lapsed: number }>(`SELECT CASE WHEN "until" < ${sql.now} THEN 1 ELSE 0 END AS "lapsed" FROM "NodeLease" WHERE "name" = ?`, ["job"]);
    expect(row!.lapsed).toBe(1);
  });
});
