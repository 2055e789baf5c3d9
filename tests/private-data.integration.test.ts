import Database from "better-sqlite3";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

/** The data folder is private: the database holds the cookie-signing key (production build, real start-up). */

const TIMEOUT = 60_000;
const modeOf = (file: string) => statSync(file).mode & 0o777;
let root: string;
let server: ServerProcess | undefined;
afterEach(async () => {
  await server?.kill("SIGTERM");
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

it("a fresh server makes its data folder 0700 and the database, its WAL, SHM and token file 0600", { timeout: TIMEOUT }, async () => {
  root = mkdtempSync(path.join(tmpdir(), "parley-private-"));
  const data = path.join(root, "data");
  const db = path.join(data, "p.db");
  // No PARLEY_TOKEN: the server keeps a token of its own beside the database, in the same folder.
  // The workspace beside the data folder, as by default (the helper's would be made inside it, 0755, first).
  server = await startServerProcess({ port: await freePort(), databaseFile: db, env: { PARLEY_TOKEN: undefined, PARLEY_WORKSPACE: path.join(root, "workspace") } });
  expect(modeOf(data)).toBe(0o700);
  for (const file of [db, `${db}-wal`, `${db}-shm`, `${db}.token`, `${db}.server.json`]) {
    expect(existsSync(file), file).toBe(true);
    expect([file, modeOf(file)]).toEqual([file, 0o600]);
  }
  expect(server.output()).not.toMatch(/Others could read/);
});

it("an existing database that others could read is made private at start, and the log says so once", { timeout: TIMEOUT }, async () => {
  root = mkdtempSync(path.join(tmpdir(), "parley-private-"));
  const data = path.join(root, "data");
  const db = path.join(data, "p.db");
  mkdirSync(path.join(data, "backups"), { recursive: true });
  // As an earlier Parley left it: SQLite's default modes, and a backup taken before a migration.
  const old = new Database(db);
  old.exec("CREATE TABLE kept (x)");
  old.close();
  const backup = path.join(data, "backups", "p-2026-01-01T00-00-00-000Z-before-x.db");
  const copy = new Database(backup);
  copy.exec("CREATE TABLE kept (x)");
  copy.close();
  for (const file of [data, path.join(data, "backups")]) chmodSync(file, 0o755);
  for (const file of [db, backup]) chmodSync(file, 0o644);

  server = await startServerProcess({ port: await freePort(), databaseFile: db });
  expect(modeOf(data)).toBe(0o700);
  expect(modeOf(path.join(data, "backups"))).toBe(0o700);
  for (const file of [db, `${db}-wal`, `${db}-shm`, backup]) expect([file, modeOf(file)]).toEqual([file, 0o600]);
  // The migration's own backup of this database is private too.
  for (const name of readdirSync(path.join(data, "backups"))) expect([name, modeOf(path.join(data, "backups", name))]).toEqual([name, 0o600]);
  const said = server.output().match(/Others could read the database's files.*/g) ?? [];
  expect(said).toHaveLength(1);
  expect(said[0]).toContain(`${db} (0644 → 0600)`);
  expect(said[0]).toContain(`${data} (0755 → 0700)`);

  // Started again, nothing is loose: nothing is said.
  await server.kill("SIGTERM");
  server = await startServerProcess({ port: await freePort(), databaseFile: db });
  expect(server.output()).not.toMatch(/Others could read/);
});
