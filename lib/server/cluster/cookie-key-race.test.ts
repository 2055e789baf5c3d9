import { afterEach, beforeEach, expect, it } from "vitest";
import { loadCookieKey } from "../access/session-cookie";
import { openSessionEpoch } from "../access/session-epoch";
import { createDb, type Db } from "../store/db/client";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";

// Nodes starting together on a fresh database each make the cookie key if it is missing: one of
// them must not fail start-up with the other's insert (found by the cluster fault trials, where
// `prisma.setting.upsert()` failed with "Unique constraint failed on Setting_pkey" on PostgreSQL).
let testDb: TestDatabase;
let dbs: Db[];
let fixture: FixtureDb;

beforeEach(async () => {
  testDb = await createTestDatabase("parley_cookie_key");
  dbs = [await createDb(testDb.url), await createDb(testDb.url), await createDb(testDb.url)];
  fixture = await openFixtureDb(testDb.url);
});

afterEach(async () => {
  for (const db of dbs) await db.close();
  await fixture.$disconnect();
  await testDb.drop();
});

it("nodes loading the cookie key at once on a fresh database all start, with one key", async () => {
  for (let round = 0; round < 30; round++) {
    await fixture.setting.deleteMany({});
    const keys = await Promise.all(dbs.map((db) => loadCookieKey(db)));
    expect(new Set(keys).size).toBe(1);
  }
});

it("nodes opening the sign-out epoch at once on a fresh database all start, with one epoch", async () => {
  for (let round = 0; round < 30; round++) {
    await fixture.setting.deleteMany({});
    const epochs = await Promise.all(dbs.map(async (db) => (await openSessionEpoch(db)).current()));
    expect(new Set(epochs).size).toBe(1);
  }
});
