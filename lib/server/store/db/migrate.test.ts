import Database from "better-sqlite3";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateSqlite, MigrationError } from "./migrate";
import { migrationNames, migrationsPrefix } from "../../../../tests/helpers/migrations";

const ALL = migrationNames("sqlite");
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-migrate-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A migrations root holding the first `count` migrations (and any extra ones given). */
const migrationsRoot = (count: number, extra: Record<string, string> = {}, name = "m") => migrationsPrefix(path.join(dir, name), "sqlite", count, extra);

const dbFile = () => path.join(dir, "data", "parley.db");
const url = () => `file:${dbFile()}`;
const count = (table: string) => {
  const db = new Database(dbFile(), { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

/** One chat with a message, a run, a journal entry and a question, written at the first two migrations' schema. */
function seedChat() {
  const db = new Database(dbFile());
  db.exec(`
    INSERT INTO ChatSession (id, title, updatedAt) VALUES ('s1', 'Old chat', '2026-11-30T10:00:00.000Z');
    INSERT INTO Message (id, sessionId, role, text) VALUES ('m1', 's1', 'user', 'hello');
    INSERT INTO Run (id, sessionId, functionName, input, status, updatedAt) VALUES ('r1', 's1', 'test.journal', '{}', 'waiting_input', '2026-11-30T10:00:00.000Z');
    INSERT INTO JournalEntry (runId, seq, kind, name, digest) VALUES ('r1', 0, 'ask', 'color', 'd');
    INSERT INTO Question (id, sessionId, runId, kind, prompt, owner, pendingId, targetDigest, status) VALUES ('q1', 's1', 'r1', 'text', 'Which colour?', 'local', 'p1', 't', 'pending');
  `);
  db.close();
}

describe("migrating a SQLite database", () => {
  it("keeps every row of a chat when a later migration rebuilds the tables it hangs from (the cascade the old runner let through)", async () => {
    await migrateSqlite(url(), migrationsRoot(2, {}, "old"));
    seedChat();
    const result = await migrateSqlite(url(), migrationsRoot(ALL.length));
    expect(result.applied).toEqual(ALL.slice(2));
    for (const table of ["ChatSession", "Message", "Run", "JournalEntry", "Question"]) expect(count(table), table).toBe(1);
    const db = new Database(dbFile(), { readonly: true });
    expect(db.pragma("foreign_key_check")).toEqual([]);
    expect(db.prepare(`SELECT ownerId FROM ChatSession`).get()).toEqual({ ownerId: "local" });
    db.close();
  });

  it("makes a person of every owner an earlier version knew, so their API tokens keep working; the administrator stays no row", async () => {
    const teams = ALL.indexOf("20261207090000_teams");
    await migrateSqlite(url(), migrationsRoot(teams, {}, "before-teams"));
    const db = new Database(dbFile());
    db.exec(`
      INSERT INTO ChatSession (id, ownerId, title, updatedAt) VALUES ('s1', 'local', 'Mine', '2026-12-01T10:00:00.000Z'), ('s2', 'ann', 'Ann''s', '2026-12-01T10:00:00.000Z');
      INSERT INTO ApiToken (id, ownerId, name, secretHash) VALUES ('t1', 'ann', 'ci', 'h'), ('t2', 'bo', 'bot', 'h'), ('t3', 'local', 'mine', 'h');
    `);
    db.close();
    expect((await migrateSqlite(url(), migrationsRoot(ALL.length))).applied).toEqual(ALL.slice(teams));
    const after = new Database(dbFile(), { readonly: true });
    expect(after.prepare(`SELECT id, admin, addedBy FROM "User" ORDER BY id`).all()).toEqual([
      { id: "ann", admin: 0, addedBy: "local" },
      { id: "bo", admin: 0, addedBy: "local" },
    ]);
    after.close();
  });

  it("backs an existing database up before migrating it, and keeps the last five such copies; a new database is not copied", async () => {
    const first = await migrateSqlite(url(), migrationsRoot(2, {}, "old"));
    expect(first.backup).toBeUndefined();
    seedChat();
    const lines: string[] = [];
    const result = await migrateSqlite(url(), migrationsRoot(ALL.length), { log: (line) => lines.push(line) });
    expect(result.backup).toMatch(new RegExp(`data/backups/parley-\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z-before-${ALL[2]}\\.db$`));
    const copy = new Database(result.backup, { readonly: true });
    expect(copy.prepare(`SELECT count(*) AS n FROM Message`).get()).toEqual({ n: 1 });
    expect(copy.prepare(`SELECT migration_name FROM _prisma_migrations ORDER BY migration_name`).all()).toEqual(ALL.slice(0, 2).map((migration_name) => ({ migration_name })));
    copy.close();
    expect(lines[0]).toContain(`${ALL.length - 2} migration(s) to apply: ${ALL.slice(2).join(", ")}`);
    expect(lines[1]).toContain(`Backed up ${dbFile()} to ${result.backup}`);

    // Another database's copies beside these, and the copy a restore left, are never pruned.
    const others = ["parley-test-2026-01-01T00-00-00-000Z-before-20261130093936_init.db", "parley-2026-01-01T00-00-00-000Z-before-restore.db"];
    for (const name of others) writeFileSync(path.join(dir, "data", "backups", name), "");
    for (let i = 0; i < 6; i++) {
      const extra = { [`2099010100000${i}_extra`]: `CREATE TABLE "Extra${i}" ("id" TEXT NOT NULL PRIMARY KEY);` };
      const more = Object.fromEntries(Array.from({ length: i + 1 }, (_, j) => [`2099010100000${j}_extra`, `CREATE TABLE "Extra${j}" ("id" TEXT NOT NULL PRIMARY KEY);`]));
      expect((await migrateSqlite(url(), migrationsRoot(ALL.length, { ...more, ...extra }))).applied).toEqual([`2099010100000${i}_extra`]);
    }
    const all = readdirSync(path.join(dir, "data", "backups")).sort();
    expect(all).toEqual(expect.arrayContaining(others));
    const kept = all.filter((name) => !others.includes(name));
    expect(kept).toHaveLength(5);
    expect(kept.map((name) => name.replace(/^.*-before-/, ""))).toEqual([1, 2, 3, 4, 5].map((i) => `2099010100000${i}_extra.db`));
  });

  it("rolls back a migration that would break a foreign key, names it and the rows, and stops", async () => {
    await migrateSqlite(url(), migrationsRoot(ALL.length));
    seedChat();
    const bad = { "20990101000000_drop_sessions": `DELETE FROM "ChatSession";` };
    const err = await migrateSqlite(url(), migrationsRoot(ALL.length, bad)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as Error).message).toMatch(
      /Migration 20990101000000_drop_sessions failed and was rolled back: it would leave 3 row\(s\) pointing at rows that do not exist \(.*Message row \d+ → ChatSession/,
    );
    expect(count("ChatSession")).toBe(1);
    expect(count("Message")).toBe(1);
    const db = new Database(dbFile(), { readonly: true });
    expect(db.prepare(`SELECT count(*) AS n FROM _prisma_migrations WHERE migration_name = ?`).get("20990101000000_drop_sessions")).toEqual({ n: 0 });
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    db.close();
  });

  it("stops on a migration whose SQL fails, naming it, with the database as it was", async () => {
    await migrateSqlite(url(), migrationsRoot(ALL.length));
    const bad = { "20990101000000_half": `CREATE TABLE "Half" ("id" TEXT); INSERT INTO "Nowhere" VALUES (1);` };
    await expect(migrateSqlite(url(), migrationsRoot(ALL.length, bad))).rejects.toThrow(/Migration 20990101000000_half failed and was rolled back: no such table: Nowhere/);
    const db = new Database(dbFile(), { readonly: true });
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'Half'`).get()).toBeUndefined();
    db.close();
  });

  it("refuses to start on a database whose book shows a migration that failed half-way (as prisma migrate deploy leaves it)", async () => {
    await migrateSqlite(url(), migrationsRoot(ALL.length - 1));
    const db = new Database(dbFile());
    db.prepare(`INSERT INTO _prisma_migrations (id, checksum, migration_name, logs) VALUES ('x', 'c', ?, 'boom')`).run(ALL.at(-1));
    db.close();
    await expect(migrateSqlite(url(), migrationsRoot(ALL.length))).rejects.toThrow(new RegExp(`Migration ${ALL.at(-1)} failed half-way .*: boom\\. Restore the backup`));
  });

  it("refuses to start when an applied migration's file changed since, and accepts the same file with Windows line endings", async () => {
    await migrateSqlite(url(), migrationsRoot(ALL.length));
    const changed = migrationsRoot(ALL.length, {}, "changed");
    const sqlFile = path.join(changed, "sqlite", ALL[1]!, "migration.sql");
    const original = readFileSync(sqlFile, "utf8");
    writeFileSync(sqlFile, original.replace(/\n/g, "\r\n"));
    expect((await migrateSqlite(url(), changed)).applied).toEqual([]);
    writeFileSync(sqlFile, `${original}\n-- edited\n`);
    await expect(migrateSqlite(url(), changed)).rejects.toThrow(`The migration ${ALL[1]} was modified after it was applied`);
  });

  it("two servers starting at once on an old database: each takes its backup, one applies each migration, neither fails", async () => {
    await migrateSqlite(url(), migrationsRoot(2, {}, "old"));
    seedChat();
    const root = migrationsRoot(ALL.length);
    // Both read the book and go to their backups before either migrates.
    const [a, b] = await Promise.all([migrateSqlite(url(), root), migrateSqlite(url(), root)]);
    expect([...a.applied, ...b.applied].sort()).toEqual(ALL.slice(2));
    expect(a.backup && b.backup).toBeTruthy();
    for (const table of ["ChatSession", "Message", "Run", "JournalEntry", "Question"]) expect(count(table), table).toBe(1);
    const db = new Database(dbFile(), { readonly: true });
    expect(db.prepare(`SELECT count(*) AS n FROM _prisma_migrations`).get()).toEqual({ n: ALL.length });
    db.close();
  });

  it("refuses a database a newer Parley migrated", async () => {
    await migrateSqlite(url(), migrationsRoot(ALL.length, { "20990101000000_newer": `CREATE TABLE "Newer" ("id" TEXT);` }));
    await expect(migrateSqlite(url(), migrationsRoot(ALL.length, {}, "older"))).rejects.toThrow(/was migrated by a newer Parley \(20990101000000_newer/);
    expect(existsSync(path.join(dir, "data", "backups"))).toBe(false);
  });
});
