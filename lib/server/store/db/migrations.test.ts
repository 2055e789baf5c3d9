import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPgDatabase, pgReachable } from "../../../../tests/helpers/test-db";

// Neither migrations folder may lag the models: `prisma migrate diff --from-migrations … --to-schema … --exit-code`
// exits 0 when replaying the folder gives the schema, 2 when a migration is missing.
const root = path.resolve(import.meta.dirname, "../../../..");
const PG_URL = process.env.PARLEY_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/test";

function diff(engine: "sqlite" | "postgresql", env: Record<string, string>) {
  const result = spawnSync(process.execPath, ["scripts/prisma.mjs", "migrate", "diff", "--from-migrations", `prisma/migrations/${engine}`, "--to-schema", `prisma/${engine}`, "--exit-code"], {
    cwd: root,
    env: { ...process.env, ...env, PARLEY_PRISMA_PROVIDER: engine },
    encoding: "utf8",
  });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe("migrations keep up with prisma/models", () => {
  it("sqlite: prisma/migrations/sqlite gives the schema", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "parley-migdiff-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const { status, output } = diff("sqlite", { DATABASE_URL: `file:${path.join(dir, "shadow.db")}` });
    expect(status, `prisma/migrations/sqlite lags prisma/models: create the missing migration for both engines\n${output}`).toBe(0);
  });

  it("postgresql: prisma/migrations/postgresql gives the schema", async (ctx) => {
    const reachable = await pgReachable(PG_URL);
    if (!reachable.ok) {
      console.warn(`[skip] postgresql migrations check: no PostgreSQL at ${PG_URL} (${reachable.reason}); set PARLEY_TEST_PG_URL`);
      ctx.skip();
      return;
    }
    const shadow = await createPgDatabase(PG_URL, "parley_shadow", { migrate: false });
    cleanups.push(shadow.drop);
    // The datasource is only connected to, never changed; the shadow database is where the migrations replay.
    const { status, output } = diff("postgresql", { DATABASE_URL: PG_URL, SHADOW_DATABASE_URL: shadow.url });
    expect(status, `prisma/migrations/postgresql lags prisma/models: create the missing migration for both engines\n${output}`).toBe(0);
  });
});
