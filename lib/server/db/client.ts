import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../../generated/prisma/client";

export type Db = PrismaClient;
/** The client inside an interactive transaction. */
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Opens the database named by a `file:` URL (relative paths resolve against the working directory). */
export async function createDb(databaseUrl: string): Promise<Db> {
  const adapter = new PrismaBetterSqlite3({ url: databaseUrl, timeout: 5_000 });
  const db = new PrismaClient({ adapter });
  // With WAL, NORMAL survives any crash of the process (kill -9 included); only a power loss can
  // drop the last commits. FULL would add an fsync to every commit.
  await db.$executeRawUnsafe("PRAGMA synchronous = NORMAL");
  return db;
}
