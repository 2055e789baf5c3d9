import { defineConfig } from "prisma/config";

// The Prisma CLI does not read .env in v7; the app defaults to the same file.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "file:./data/parley.db" },
});
