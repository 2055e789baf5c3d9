import { afterEach, beforeEach, expect, it } from "vitest";
import { openStoreTestDb, type StoreTestDb } from "../../../tests/helpers/fixture-db";
import { isPgMigrated, pingDatabase } from "./health-store";

// On whichever engine the suite runs (SQLite, or PostgreSQL under `npm run test:pg`).
let t: StoreTestDb;
beforeEach(async () => {
  t = await openStoreTestDb("parley_health");
});
afterEach(() => t.close());

it("a database that answers is pinged", async () => {
  await expect(pingDatabase(t.db.exec)).resolves.toBeUndefined();
});

it("PostgreSQL: a migrated database has Parley's tables", async (ctx) => {
  if (t.db.engine !== "postgresql") ctx.skip();
  expect(await isPgMigrated(t.db.exec)).toBe(true);
});
