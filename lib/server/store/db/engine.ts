import path from "node:path";

/** The database engines Parley runs on, told apart by DATABASE_URL's scheme. */
export type Engine = "sqlite" | "postgresql";

export const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** file: → sqlite, postgres:// or postgresql:// → postgresql; anything else is refused. */
export function engineOf(databaseUrl: string): Engine {
  if (databaseUrl.startsWith("file:")) return "sqlite";
  if (POSTGRES_URL.test(databaseUrl)) return "postgresql";
  throw new Error(`DATABASE_URL must be a SQLite file: URL or a postgres:// / postgresql:// URL (got "${databaseUrl.split(":")[0]}:")`);
}

/** The absolute path of a SQLite file: URL's database (or ":memory:"). */
export function sqliteFilePath(databaseUrl: string): string {
  if (!databaseUrl.startsWith("file:")) {
    throw new Error(`DATABASE_URL must be a SQLite file: URL (got "${databaseUrl.split(":")[0]}:")`);
  }
  const raw = databaseUrl.slice("file:".length).split("?")[0]!;
  return raw === ":memory:" ? raw : path.resolve(raw);
}
