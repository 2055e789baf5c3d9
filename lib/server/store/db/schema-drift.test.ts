import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPgDatabase, pgReachable } from "../../../../tests/helpers/test-db";
import { migrateDatabase } from "./migrate";

// A fresh database of each engine, migrated as the server migrates it at start-up (migrateDatabase),
// must be the schema in prisma/models: `prisma migrate diff --from-config-datasource … --to-schema …
// --exit-code` exits 0 when there is nothing to change, 2 with the SQL that would remove the drift.
// (migrations.test.ts checks Prisma's own replay of the folders; this checks the start-up path's result.)
const root = path.resolve(import.meta.dirname, "../../../..");
const MIGRATIONS = path.join(root, "prisma/migrations");
const PG_URL = process.env.PARLEY_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/test";

/** What Prisma would run on the database at `databaseUrl` to make it the engine's schema (exit 0: nothing). */
function driftOf(engine: "sqlite" | "postgresql", databaseUrl: string) {
  const result = spawnSync(process.execPath, ["scripts/prisma.mjs", "migrate", "diff", "--from-config-datasource", "--to-schema", `prisma/${engine}`, "--script", "--exit-code"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, PARLEY_PRISMA_PROVIDER: engine },
    encoding: "utf8",
  });
  return { status: result.status, sql: result.stdout.trim(), output: `${result.stdout}\n${result.stderr}`.trim() };
}

const driftMessage = (engine: string, output: string) =>
  `A fresh ${engine} database migrated with prisma/migrations/${engine} differs from prisma/models. ` +
  `Run \`npm run migration:new NAME\` for the missing change (never edit an applied migration). What Prisma would run to close the gap:\n${output}`;

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe("a freshly migrated database is the schema (no drift)", () => {
  it("sqlite", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "parley-drift-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const url = `file:${path.join(dir, "fresh.db")}`;
    expect((await migrateDatabase(url, MIGRATIONS)).applied.length).toBeGreaterThan(0);
    const { status, output } = driftOf("sqlite", url);
    expect(status, driftMessage("sqlite", output)).toBe(0);

    // The check sees drift: a column the schema does not have makes SQL that rebuilds its table (SQLite drops a column so).
    const db = new Database(path.join(dir, "fresh.db"));
    db.exec(`ALTER TABLE "DisplayName" ADD COLUMN "driftProbe" TEXT`);
    db.close();
    const drifted = driftOf("sqlite", url);
    expect(drifted.status, drifted.output).toBe(2);
    expect(drifted.sql).toMatch(/CREATE TABLE "new_DisplayName"/);
  });

  it("postgresql", { timeout: 60_000 }, async (ctx) => {
    const reachable = await pgReachable(PG_URL);
    if (!reachable.ok) {
      console.warn(`[skip] postgresql drift check: SKIPPED, no PostgreSQL at ${PG_URL} (${reachable.reason}); set PARLEY_TEST_PG_URL`);
      ctx.skip();
      return;
    }
    const db = await createPgDatabase(PG_URL, "parley_drift", { migrate: false });
    cleanups.push(db.drop);
    expect((await migrateDatabase(db.url, MIGRATIONS)).applied.length).toBeGreaterThan(0);
    const { status, output } = driftOf("postgresql", db.url);
    expect(status, driftMessage("postgresql", output)).toBe(0);
  });
});
