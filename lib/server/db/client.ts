import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../../generated/prisma/client";

export type Db = PrismaClient;

/** Opens the database named by a `file:` URL (relative paths resolve against the working directory). */
export function createDb(databaseUrl: string): Db {
  const adapter = new PrismaBetterSqlite3({ url: databaseUrl, timeout: 5_000 });
  return new PrismaClient({ adapter });
}
