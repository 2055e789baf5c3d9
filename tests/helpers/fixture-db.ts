import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../../lib/generated/prisma/client";
import { engineOf } from "../../lib/server/store/db/engine";
import { createDb, type Db } from "../../lib/server/store/db/client";
import { createTestDatabase, type TestDatabase } from "./test-db";

/** A plain Prisma client for a test's own setup rows and assertions (the server's `db` is no Prisma client). */
export type FixtureDb = PrismaClient;

/** Opens a FixtureDb on the database at `url` (the server's); `$disconnect()` it when done. Typed as the SQLite client on either engine. */
export async function openFixtureDb(url: string): Promise<FixtureDb> {
  if (engineOf(url) !== "postgresql") return new PrismaClient({ adapter: new PrismaBetterSqlite3({ url }) });
  const [{ PrismaPg }, { PrismaClient: PgPrismaClient }] = await Promise.all([import("@prisma/adapter-pg"), import("../../lib/generated/prisma-pg/client")]);
  return new PgPrismaClient({ adapter: new PrismaPg({ connectionString: url }) }) as unknown as FixtureDb;
}

/** A fresh test database, the server's handle on it and a fixture client beside it (a store's test); `close()` drops it all. */
export interface StoreTestDb {
  testDb: TestDatabase;
  db: Db;
  fixture: FixtureDb;
  close(): Promise<void>;
}

export async function openStoreTestDb(prefix: string, prepare?: (testDb: TestDatabase) => Promise<void>): Promise<StoreTestDb> {
  const testDb = await createTestDatabase(prefix);
  await prepare?.(testDb);
  const [db, fixture] = await Promise.all([createDb(testDb.url), openFixtureDb(testDb.url)]);
  return { testDb, db, fixture, close: async () => (await fixture.$disconnect(), await db.close(), await testDb.drop()) };
}
