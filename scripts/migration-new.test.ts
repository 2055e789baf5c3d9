import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pgReachable } from "../tests/helpers/test-db";

// `npm run migration:new NAME` on a copy of prisma/migrations (--migrations): the newest migration
// taken away, it writes it again for both engines; run again, it finds no change and writes nothing.
const root = path.resolve(import.meta.dirname, "..");
const PG_URL = process.env.PARLEY_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/test";
const ENGINES = ["sqlite", "postgresql"] as const;

const migrationNew = (...args: string[]) => {
  const result = spawnSync(process.execPath, ["scripts/migration-new.mjs", ...args], { cwd: root, env: { ...process.env, PARLEY_TEST_PG_URL: PG_URL }, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
};
const folders = (migrations: string, engine: string) => readdirSync(path.join(migrations, engine)).filter((name) => /^\d{14}_/.test(name));
/** The statements of a migration, without comments and blank lines (Prisma writes `-- CreateTable` where a person wrote why). */
const statements = (sql: string) =>
  sql
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("--"))
    .join("\n");

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function copyOfMigrations() {
  const dir = mkdtempSync(path.join(tmpdir(), "parley-migration-new-test-"));
  dirs.push(dir);
  cpSync(path.join(root, "prisma/migrations"), path.join(dir, "migrations"), { recursive: true });
  return path.join(dir, "migrations");
}

describe("npm run migration:new", () => {
  it("refuses a bad NAME, a missing one, and one either engine already has, writing nothing", () => {
    const migrations = copyOfMigrations();
    const before = ENGINES.map((engine) => folders(migrations, engine));
    for (const args of [["Add-Column"], ["1st"], [], ["a", "b"], [folders(migrations, "sqlite").at(-1)!.slice(15)]]) {
      const { status, output } = migrationNew("--migrations", migrations, ...args);
      expect(status, output).toBe(1);
      expect(output).toMatch(/^migration:new: /m);
    }
    expect(ENGINES.map((engine) => folders(migrations, engine))).toEqual(before);
  });

  it("writes the change for both engines, after the newest migration; then finds no change", { timeout: 90_000 }, async (ctx) => {
    const reachable = await pgReachable(PG_URL);
    if (!reachable.ok) {
      console.warn(`[skip] migration:new: SKIPPED, no PostgreSQL at ${PG_URL} (${reachable.reason}); set PARLEY_TEST_PG_URL`);
      ctx.skip();
      return;
    }
    const migrations = copyOfMigrations();
    const removed = ENGINES.map((engine) => {
      const newest = folders(migrations, engine).at(-1)!;
      const sql = readFileSync(path.join(migrations, engine, newest, "migration.sql"), "utf8");
      rmSync(path.join(migrations, engine, newest), { recursive: true });
      return { engine, newest, sql };
    });

    const made = migrationNew("--migrations", migrations, "again");
    expect(made.status, made.output).toBe(0);
    for (const { engine, newest, sql } of removed) {
      const written = folders(migrations, engine).at(-1)!;
      expect(written, made.output).toMatch(/^\d{14}_again$/);
      expect(written > folders(migrations, engine).at(-2)!).toBe(true);
      expect(made.output).toContain(path.join(engine, written, "migration.sql"));
      expect(statements(readFileSync(path.join(migrations, engine, written, "migration.sql"), "utf8")), `${engine}: ${newest} written again`).toBe(statements(sql));
    }

    const none = migrationNew("--migrations", migrations, "nothing");
    expect(none.status, none.output).toBe(0);
    expect(none.output).toContain("No change to migrate");
    expect(ENGINES.flatMap((engine) => folders(migrations, engine)).filter((name) => name.endsWith("_nothing"))).toEqual([]);
  });
});
