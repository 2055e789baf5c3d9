import Database from "better-sqlite3";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createPrivateFile, makeSqliteDataPrivate } from "./private-files";
import { backupSqlite } from "./sqlite-backup";

const modeOf = (file: string) => statSync(file).mode & 0o777;
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const fresh = () => (dir = mkdtempSync(path.join(tmpdir(), "parley-private-")));

describe("private data files", () => {
  it("creates the database 0600 in a 0700 folder before SQLite opens it, and SQLite gives its WAL and SHM the same mode", () => {
    const file = path.join(fresh(), "data", "nested", "p.db");
    createPrivateFile(file);
    expect(modeOf(path.dirname(file))).toBe(0o700);
    expect(modeOf(path.join(dir, "data"))).toBe(0o700);
    expect(modeOf(file)).toBe(0o600);
    const db = new Database(file);
    try {
      db.pragma("journal_mode = WAL");
      db.exec("CREATE TABLE t (x)");
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect([f, modeOf(f)]).toEqual([f, 0o600]);
    } finally {
      db.close();
    }
    // An existing file is left as it is.
    writeFileSync(file, "kept");
    createPrivateFile(file);
    expect(statSync(file).size).toBe(4);
  });

  it("makes an existing database, its WAL, SHM and backups 0600 and their folders 0700, and says what was looser", () => {
    const data = path.join(fresh(), "data");
    const file = path.join(data, "p.db");
    mkdirSync(path.join(data, "backups"), { recursive: true, mode: 0o755 });
    chmodSync(data, 0o755);
    for (const f of [file, `${file}-wal`, `${file}-shm`, path.join(data, "backups", "p-1.db")]) writeFileSync(f, "", { mode: 0o644 });
    writeFileSync(path.join(data, "backups", "p-2.db"), "", { mode: 0o600 });
    const changed = makeSqliteDataPrivate(file, path.join(data, "backups"));
    expect(changed).toEqual([
      `${data} (0755 → 0700)`,
      `${file} (0644 → 0600)`,
      `${file}-wal (0644 → 0600)`,
      `${file}-shm (0644 → 0600)`,
      `${path.join(data, "backups")} (0755 → 0700)`,
      `${path.join(data, "backups", "p-1.db")} (0644 → 0600)`,
    ]);
    for (const f of [file, `${file}-wal`, `${file}-shm`, path.join(data, "backups", "p-1.db"), path.join(data, "backups", "p-2.db")]) expect(modeOf(f)).toBe(0o600);
    expect(modeOf(data)).toBe(0o700);
    expect(makeSqliteDataPrivate(file, path.join(data, "backups"))).toEqual([]);
  });

  it("leaves a folder that holds other things as it is (a project folder, /tmp), and makes the database's own files private", () => {
    const shared = fresh();
    chmodSync(shared, 0o755);
    writeFileSync(path.join(shared, "notes.txt"), "someone else's");
    const file = path.join(shared, "p.db");
    writeFileSync(file, "", { mode: 0o644 });
    expect(makeSqliteDataPrivate(file, path.join(shared, "backups"))).toEqual([`${file} (0644 → 0600)`]);
    expect(modeOf(shared)).toBe(0o755);
  });

  it("writes a backup 0600, in a 0700 folder it makes", async () => {
    const source = new Database(path.join(fresh(), "source.db"));
    try {
      source.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
      const { file } = await backupSqlite(source, path.join(dir, "backups", "copy.db"));
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(path.dirname(file))).toBe(0o700);
      const copy = new Database(file, { readonly: true });
      expect(copy.prepare("SELECT x FROM t").get()).toEqual({ x: 1 });
      copy.close();
    } finally {
      source.close();
    }
  });
});
