import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "./db/client";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../tests/helpers/fixture-db";
import type { TestDatabase } from "../../../tests/helpers/test-db";
import { statement } from "./typed-sql";

let t: StoreTestDb;
let db: Db;
let fixture: FixtureDb;
let testDb: TestDatabase;

beforeEach(async () => {
  t = await openStoreTestDb("parley_exec");
  ({ db, fixture, testDb } = t);
});

afterEach(() => t.close());

const insertSession = statement((q, p: { id: string; at: Date; deletedAt: Date | null }) =>
  q.insertInto("ChatSession").values({ id: p.id, title: "t", createdAt: p.at, updatedAt: p.at, deletedAt: p.deletedAt }).returningAll(),
);
const sessionWithFlag = statement((q, p: { id: string }) =>
  q.selectFrom("ChatSession as s").leftJoin("Message as m", "m.sessionId", "s.id").select(["s.id", "s.createdAt", "s.deletedAt", "m.stopped"]).where("s.id", "=", p.id),
);

// On SQLite, or on PostgreSQL under `npm run test:pg`.
describe("the engine's executor", () => {
  it("writes dates as Prisma stores them and reads dates and booleans back in the schema's types", async () => {
    const { exec } = db;
    expect(exec.engine).toBe(testDb.engine);
    const at = new Date("2026-12-03T10:11:12.345Z");
    const [row] = await exec.write(insertSession, { id: "s1", at, deletedAt: null });
    expect(row).toMatchObject({ id: "s1", createdAt: at, deletedAt: null });
    // Prisma reads what the executor wrote, and the other way round.
    expect((await fixture.chatSession.findUnique({ where: { id: "s1" } }))!.createdAt).toEqual(at);
    await fixture.message.create({ data: { id: "m1", sessionId: "s1", role: "agent", text: "x", stopped: true } });
    const [read] = await exec.rows(sessionWithFlag, { id: "s1" });
    expect(read).toEqual({ id: "s1", createdAt: at, deletedAt: null, stopped: true });
  });
});

const countSessions = statement((q) => q.selectFrom("ChatSession").select((eb) => eb.fn.countAll<number>().as("n")));
const renameSession = statement((q, p: { id: string; title: string }) => q.updateTable("ChatSession").set({ title: p.title }).where("id", "=", p.id));

describe("a transaction on the engine's executor", () => {
  it("reads rows in the schema's types, counts changes, and rolls everything back on a throw", async () => {
    const { exec } = db;
    const at = new Date("2026-12-03T10:11:12.345Z");
    const inside = await exec.transaction(async (tx) => {
      const [row] = await tx.rows(insertSession, { id: "s1", at, deletedAt: at });
      const changed = await tx.changes(renameSession, { id: "s1", title: "renamed" });
      const [count] = await tx.rows(countSessions, {});
      return { row, changed, count };
    });
    expect(inside.row).toMatchObject({ id: "s1", createdAt: at, deletedAt: at });
    expect(inside.changed).toBe(1);
    expect(inside.count).toEqual({ n: 1 });
    await expect(
      exec.transaction(async (tx) => {
        await tx.rows(insertSession, { id: "s2", at, deletedAt: null });
        await tx.changes(renameSession, { id: "s1", title: "lost" });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await exec.rows(countSessions, {})).toEqual([{ n: 1 }]);
    expect(await exec.changes(renameSession, { id: "s1", title: "again" })).toBe(1);
    expect(await exec.changes(renameSession, { id: "nope", title: "again" })).toBe(0);
    expect((await fixture.chatSession.findUnique({ where: { id: "s1" } }))!.title).toBe("again");
    await fixture.message.create({ data: { id: "m1", sessionId: "s1", role: "agent", text: "x", stopped: true } });
    expect(await exec.transaction((tx) => tx.rows(sessionWithFlag, { id: "s1" }))).toEqual([{ id: "s1", createdAt: at, deletedAt: at, stopped: true }]);
  });
});
