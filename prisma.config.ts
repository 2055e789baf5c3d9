import { defineConfig } from "prisma/config";

// The Prisma CLI does not read .env in v7; the app defaults to the same file.
// DATABASE_URL picks the engine: file:… → prisma/sqlite + prisma/migrations/sqlite,
// postgres(ql)://… → prisma/postgresql + prisma/migrations/postgresql.
// PARLEY_PRISMA_PROVIDER=sqlite|postgresql overrides it (e.g. to generate a client without a database).
// SHADOW_DATABASE_URL is passed on for `migrate dev` / `migrate diff --from-migrations` on PostgreSQL.
const url = process.env.DATABASE_URL ?? "file:./data/parley.db";
const provider = process.env.PARLEY_PRISMA_PROVIDER ?? (/^postgres(ql)?:\/\//.test(url) ? "postgresql" : "sqlite");
if (provider !== "sqlite" && provider !== "postgresql") throw new Error(`Unknown PARLEY_PRISMA_PROVIDER "${provider}" (sqlite or postgresql)`);

export default defineConfig({
  schema: `prisma/${provider}`,
  migrations: { path: `prisma/migrations/${provider}` },
  datasource: { url, ...(process.env.SHADOW_DATABASE_URL ? { shadowDatabaseUrl: process.env.SHADOW_DATABASE_URL } : {}) },
});
