import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventLoopProbe, holdWriteLock } from "../../../../tests/helpers/write-lock";
import { AppError } from "../../../protocol/errors";
import { createDb, type Db } from "./client";
import { openSqlite } from "./sqlite-connection";
import { statement } from "../typed-sql";
import { insertSession } from "../sessions/session-statements";
import { migrateSqlite } from "./migrate";

const root = path.resolve(import.meta.dirname, "../../../..");
let dir: string;
let file: string;
let db: Db | undefined;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-db-"));
  file = path.join(dir, "t.db");
  await migrateSqlite(`file:${file}`, path.join(root, "prisma/migrations"));
});

afterEach(async () => {
  await db?.close();
  db = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const synchronousInForce = () => db!.direct!.prepare("PRAGMA synchronous").get<{ synchronous: number }>()!.synchronous;
const sessionRow = (id: string, title = id) => ({ id, ownerId: "local", title, at: new Date() });
const newSession = (id: string) => db!.exec.write(insertSession, sessionRow(id));
const rename = statement((q, p: { id: string; title: string }) => q.updateTable("ChatSession").set({ title: p.title }).where("id", "=", p.id));
const sessions = statement((q) => q.selectFrom("ChatSession").select(["id", "title", "createdAt"]).orderBy("id"));
const ids = async () => (await db!.exec.rows(sessions, {})).map((s) => s.id);

describe("the database client", () => {
  it("FULL on a WAL database commits at NORMAL and syncs the WAL itself; NORMAL leaves it to the OS; a rollback journal syncs in COMMIT", async () => {
    db = await createDb(`file:${file}`);
    expect(synchronousInForce()).toBe(1);
    await newSession("kept");
    expect(await ids()).toEqual(["kept"]);
    await db.close();
    db = await createDb(`file:${file}`, { synchronous: "NORMAL" });
    expect(synchronousInForce()).toBe(1);
    await db.close();
    const journal = openSqlite(file, { synchronous: "NORMAL", busyTimeoutMs: 1_000 });
    journal.prepare("PRAGMA journal_mode = DELETE").get();
    await journal.close();
    db = await createDb(`file:${file}`);
    expect(synchronousInForce()).toBe(2);
  });

  it("FULL: a commit's callers hear once the WAL is synced; a read asked meanwhile waits for it; the next transaction commits meanwhile", async () => {
    // The sync is the test's: it ends when the test says.
    const syncs: Array<() => void> = [];
    const direct = openSqlite(file, { synchronous: "FULL", busyTimeoutMs: 1_000, syncWal: () => new Promise<void>((resolve) => syncs.push(resolve)) });
    const count = () => direct.prepare("SELECT count(*) AS n FROM ChatSession").get<{ n: number }>()!.n;
    const insert = (id: string) => () => direct.prepare(`INSERT INTO ChatSession (id, ownerId, title, createdAt, updatedAt) VALUES (?, 'local', ?, 0, 0)`).run(id, id);
    const heard: string[] = [];
    const first = direct.transaction(insert("a"), () => heard.push("committed a")).then(() => heard.push("a"));
    const failing = direct.transaction(
      () => {
        throw new Error("no");
      },
      () => heard.push("committed the failing one"),
    );
    const failed = expect(failing).rejects.toThrow("no");
    await expect.poll(() => syncs.length).toBe(1);
    // Told of the commit as it is made; not of the work that threw.
    expect(heard).toEqual(["committed a"]);
    heard.length = 0;
    const read = direct.read(() => (heard.push("read"), count()));
    const second = direct.transaction(insert("b")).then(() => heard.push("b"));
    // The second commits (the event loop is free) while the first's sync runs; nobody has heard yet.
    await expect.poll(() => count()).toBe(2);
    expect(heard).toEqual([]);
    syncs.shift()!();
    await Promise.all([first, read, failed]);
    expect([...heard].sort()).toEqual(["a", "read"]);
    await expect.poll(() => syncs.length).toBe(1);
    syncs.shift()!();
    await second;
    expect(heard.at(-1)).toBe("b");
    await direct.close();
  });

  it("FULL: a transaction that changed no row syncs nothing, and is heard once the commits before it are durable", async () => {
    const syncs: Array<() => void> = [];
    const direct = openSqlite(file, { synchronous: "FULL", busyTimeoutMs: 1_000, syncWal: () => new Promise<void>((resolve) => syncs.push(resolve)) });
    const untouched = () => direct.prepare("UPDATE ChatSession SET title = 'x' WHERE id = 'nobody'").run();
    const heard: string[] = [];
    // Nothing before it: heard at once, no sync.
    await direct.transaction(untouched);
    expect(syncs).toHaveLength(0);
    const written = direct
      .transaction(() => direct.prepare(`INSERT INTO ChatSession (id, ownerId, title, createdAt, updatedAt) VALUES ('w', 'local', 'w', 0, 0)`).run())
      .then(() => heard.push("written"));
    await expect.poll(() => syncs.length).toBe(1);
    // After a commit not yet durable: it waits for that commit's sync, and asks for no other.
    const nothing = direct.transaction(untouched).then(() => heard.push("nothing"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toEqual([]);
    syncs.shift()!();
    await Promise.all([written, nothing]);
    expect(heard).toEqual(["written", "nothing"]);
    expect(syncs).toHaveLength(0);
    await direct.close();
  });

  it("waits for another process's 3 s write lock without blocking the event loop, and writes once it is released", async () => {
    db = await createDb(`file:${file}`);
    await newSession("warm-up");
    const lock = await holdWriteLock(file, 3_000);
    const probe = eventLoopProbe();
    const plain = newSession("plain").then(() => Date.now());
    const inTransaction = db.exec
      .transaction(async (tx) => {
        await tx.rows(insertSession, sessionRow("in-tx", "t"));
        return tx.changes(rename, { id: "warm-up", title: "renamed" });
      })
      .then(() => Date.now());
    const heldMs = await lock.released();
    const done = await Promise.all([plain, inTransaction]);
    const worstStall = probe.stop();

    // A stall of the lock's length is the bug (a write waiting on the event loop): the loop never
    // stopped for half the time the lock was held. A loaded 2-core machine pauses a fraction of that.
    expect(worstStall, `the event loop stopped for ${worstStall.toFixed(0)} ms while the lock was held for ${heldMs} ms`).toBeLessThan(heldMs / 2);
    // Written once the lock was let go.
    for (const at of done) expect(at).toBeGreaterThanOrEqual(await lock.releasedAt());
    expect((await db.exec.rows(sessions, {})).map((s) => [s.id, s.title])).toEqual([
      ["in-tx", "t"],
      ["plain", "plain"],
      ["warm-up", "renamed"],
    ]);
  }, 15_000);

  it("gives up on a lock that outlasts its wait with a database_busy error, and works again once the lock is gone", async () => {
    const busyTimeoutMs = 1_000;
    db = await createDb(`file:${file}`, { busyTimeoutMs });
    // Outlasts both waits, one after the other.
    const lock = await holdWriteLock(file, 3 * busyTimeoutMs);
    const probe = eventLoopProbe();
    const plain = await newSession("plain").catch((err: unknown) => err);
    const inTransaction = await db.exec.transaction((tx) => tx.rows(insertSession, sessionRow("in-tx"))).catch((err: unknown) => err);
    // Each wait on the event loop would stop it for the whole wait: it never stopped for half of one.
    expect(probe.stop()).toBeLessThan(busyTimeoutMs / 2);
    for (const err of [plain, inTransaction]) {
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: "database_busy", status: 503 });
    }

    await lock.released();
    await newSession("after");
    await db.exec.transaction((tx) => tx.rows(insertSession, sessionRow("after-tx")));
    expect(await ids()).toEqual(["after", "after-tx"]);
  }, 15_000);

  it("keeps statements from outside an open transaction out of it: they neither read what it has not committed nor vanish when it rolls back", async () => {
    db = await createDb(`file:${file}`);
    let inside!: () => void;
    const insideWrote = new Promise<void>((resolve) => (inside = resolve));
    let finish!: () => void;
    const rolledBack = db.exec
      .transaction(async (tx) => {
        await tx.rows(insertSession, sessionRow("in-tx"));
        inside();
        await new Promise<void>((resolve) => (finish = resolve));
        throw new Error("changed its mind");
      })
      .catch((err: Error) => err.message);
    await insideWrote;
    const read = ids();
    const write = newSession("outside").then(() => "written");
    await new Promise((resolve) => setTimeout(resolve, 50));
    finish();

    expect(await rolledBack).toBe("changed its mind");
    expect(await read).toEqual([]);
    expect(await write).toBe("written");
    expect(await ids()).toEqual(["outside"]);
  });

  it("the direct lane waits for another process's write lock without blocking the event loop, and rolls back what throws", async () => {
    db = await createDb(`file:${file}`);
    const direct = db.direct!;
    expect(direct).not.toBeNull();
    const insert = (id: string) =>
      direct
        .prepare(`INSERT INTO "ChatSession" ("id", "title", "ownerId", "createdAt", "updatedAt") VALUES (?, ?, 'local', ?, ?)`)
        .run(id, id, "2026-12-01T00:00:00.000+00:00", "2026-12-01T00:00:00.000+00:00");
    const lock = await holdWriteLock(file, 2_000);
    const probe = eventLoopProbe();
    const done = direct.transaction(() => insert("direct")).then(() => Date.now());
    const heldMs = await lock.released();
    // Written once the lock was let go, and the event loop never stopped for half the time it was held.
    expect(await done).toBeGreaterThanOrEqual(await lock.releasedAt());
    expect(probe.stop()).toBeLessThan(heldMs / 2);
    await expect(
      direct.transaction(() => {
        insert("rolled-back");
        throw new Error("changed its mind");
      }),
    ).rejects.toThrow("changed its mind");
    expect((await db.exec.rows(sessions, {})).map((s) => [s.id, s.createdAt.toISOString()])).toEqual([["direct", "2026-12-01T00:00:00.000Z"]]);
  }, 15_000);

  it("direct transactions asked for together share one commit; one that throws rolls back alone", async () => {
    let transactions = 0;
    db = await createDb(`file:${file}`, { observer: { query: () => {}, transaction: () => transactions++ } });
    const direct = db.direct!;
    const insert = (id: string) => () =>
      direct
        .prepare(`INSERT INTO "ChatSession" ("id", "title", "ownerId", "createdAt", "updatedAt") VALUES (?, ?, 'local', ?, ?)`)
        .run(id, id, "2026-12-01T00:00:00.000+00:00", "2026-12-01T00:00:00.000+00:00");
    const outcomes = await Promise.allSettled([
      direct.transaction(insert("a")),
      direct.transaction(() => {
        insert("b")();
        throw new Error("changed its mind");
      }),
      direct.transaction(() => (insert("c")(), "c stored")),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[2] as PromiseFulfilledResult<string>).value).toBe("c stored");
    expect(transactions).toBe(1);
    expect(await ids()).toEqual(["a", "c"]);
    // Asked for apart, they commit apart.
    await direct.transaction(insert("d"));
    await direct.transaction(insert("e"));
    expect(transactions).toBe(3);
    // Works that await between their statements join a shared commit too, each in its own savepoint.
    const awaited = await Promise.allSettled([
      db.exec.transaction(async (tx) => (await tx.rows(insertSession, sessionRow("f")), await tx.rows(insertSession, sessionRow("g")))),
      db.exec.transaction(async (tx) => {
        await tx.rows(insertSession, sessionRow("h"));
        throw new Error("changed its mind");
      }),
      db.exec.transaction(async (tx) => tx.changes(rename, { id: "a", title: "renamed" })),
    ]);
    expect(awaited.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(transactions).toBe(4);
    expect(await ids()).toEqual(["a", "c", "d", "e", "f", "g"]);
  });

  it("runs grouped transactions in turn with an interactive one: one never sees the other's uncommitted rows", async () => {
    db = await createDb(`file:${file}`);
    const direct = db.direct!;
    let finish!: () => void;
    const open = db.exec.transaction(async (tx) => {
      await tx.rows(insertSession, sessionRow("interactive"));
      await new Promise<void>((resolve) => (finish = resolve));
    });
    await new Promise((r) => setTimeout(r, 20));
    const counted = direct.transaction(() => direct.prepare(`SELECT COUNT(*) AS n FROM "ChatSession"`).get<{ n: number }>()!.n);
    await new Promise((r) => setTimeout(r, 20));
    finish();
    await open;
    expect(await counted).toBe(1);
  });
});
