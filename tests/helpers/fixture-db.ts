import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../../lib/generated/prisma/client";
import { engineOf } from "../../lib/server/db/engine";

/** A plain Prisma client for a test's own setup rows and assertions (the server's `db` is no Prisma client). */
export type FixtureDb = PrismaClient;

/** Opens a FixtureDb on the database at `url` (the server's); `$disconnect()` it when done. Typed as the SQLite client on either engine. */
export async function openFixtureDb(url: string): Promise<FixtureDb> {
  if (engineOf(url) !== "postgresql") return new PrismaClient({ adapter: new PrismaBetterSqlite3({ url }) });
  const [{ PrismaPg }, { PrismaClient: PgPrismaClient }] = await Promise.all([import("@prisma/adapter-pg"), import("../../lib/generated/prisma-pg/client")]);
  return new PgPrismaClient({ adapter: new PrismaPg({ connectionString: url }) }) as unknown as FixtureDb;
}
