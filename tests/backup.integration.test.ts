import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { restClient } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

const root = path.resolve(import.meta.dirname, "..");
let server: ServerProcess | undefined;
let dir: string;
afterEach(async () => {
  await server?.kill();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const dbFile = () => path.join(dir, "data", "parley.db");

async function parley(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), ...args], {
      env: { ...process.env, PARLEY_URL: "", DATABASE_URL: `file:${dbFile()}` },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const messagesIn = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`SELECT text FROM Message WHERE role = 'user' ORDER BY createdAt, id`).all() as { text: string }[]).map((m) => m.text);
  } finally {
    db.close();
  }
};

describe("parley backup and restore", () => {
  it("backs up while the server writes, refuses to restore under a running server, and restores once it is stopped", { timeout: 120_000 }, async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-backup-"));
    const port = await freePort();
    server = await startServerProcess({ port, databaseFile: dbFile() });
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post<{ id: string }>("/api/sessions", { title: "Backed up" }));
    const post = (i: number) => rest.ok(rest.post(`/api/sessions/${session.id}/messages`, { text: `note ${i}` }));
    await post(0);

    // Messages keep arriving while the copy is taken: it holds the first of them, whole, and none after a gap.
    let writing = true;
    let sent = 1;
    const writer = (async () => {
      while (writing) await post(sent++).catch(() => {});
    })();
    const target = path.join(dir, "copy.db");
    const backup = await parley("backup", target);
    writing = false;
    await writer;
    expect(backup, backup.stderr).toMatchObject({ code: 0 });
    expect(backup.stdout).toContain(`Backed up ${dbFile()} to ${target}`);
    const copied = messagesIn(target);
    expect(copied.length).toBeGreaterThanOrEqual(1);
    expect(existsSync(`${target}-wal`)).toBe(false);
    expect((await parley("backup", target)).stderr).toContain("already exists");

    const refused = await parley("restore", target);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/A Parley server \(pid \d+, http:\/\/127\.0\.0\.1:\d+\) is using .*parley\.db\. Stop it, then restore\./);

    await server.kill("SIGTERM");
    server = undefined;
    const before = messagesIn(dbFile());
    expect(before.slice(0, copied.length)).toEqual(copied);
    const restored = await parley("restore", target);
    expect(restored, restored.stderr).toMatchObject({ code: 0 });
    const previous = /kept as (\S+)\.\n/.exec(restored.stdout)?.[1];
    expect(previous).toMatch(/data\/backups\/parley-.*-before-restore\.db$/);
    expect(messagesIn(previous!)).toEqual(before);
    expect(messagesIn(dbFile())).toEqual(copied);

    server = await startServerProcess({ port, databaseFile: dbFile() });
    const detail = await restClient(server.url).ok(restClient(server.url).get<{ messages: Array<{ role: string; text: string }> }>(`/api/sessions/${session.id}`));
    expect(detail.messages.filter((m) => m.role === "user").map((m) => m.text)).toEqual(copied);
  });

  it("refuses to restore a file that is not a Parley database, and to back up PostgreSQL", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-backup-"));
    writeFileSync(path.join(dir, "junk.db"), "not a database");
    const junk = await parley("restore", path.join(dir, "junk.db"));
    expect(junk.code).toBe(1);
    expect(junk.stderr).toContain("Not restored:");
    expect(existsSync(dbFile())).toBe(false);

    const pg = await parley("backup", "--database", "postgresql://postgres@127.0.0.1:5432/test");
    expect(pg.code).toBe(1);
    expect(pg.stderr).toContain("for PostgreSQL use pg_dump");
  });
});
