import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDb, directPg, directSqlite, type Db } from "../db/client";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";
import { pgExecutor, sqliteExecutor } from "./sql-executor";
import { statement } from "./typed-sql";

let testDb: TestDatabase;
let db: Db;

beforeEach(async () => {
  testDb = await createTestDatabase("parley_exec");
  db = await createDb(testDb.url);
});

afterEach(async () => {
  await db.$disconnect();
  await testDb.drop();
});

const insertSession = statement((q, p: { id: string; at: Date; deletedAt: Date | null }) =>
  q.insertInto("ChatSession").values({ id: p.id, title: "t", createdAt: p.at, updatedAt: p.at, deletedAt: p.deletedAt }).returningAll(),
);
const sessionWithFlag = statement((q, p: { id: string }) =>
  q.selectFrom("ChatSession as s").leftJoin("Message as m", "m.sessionId", "s.id").select(["s.id", "s.createdAt", "s.deletedAt", "m.stopped"]).where("s.id", "=", p.id),
);

// On SQLite, or on PostgreSQL under `npm run test:pg`.
describe("the engine's executor", () => {
  it("writes dates as Prisma stores them and reads dates and booleans back in the schema's types", async () => {
    const direct = directSqlite(db);
    const exec = direct ? sqliteExecutor(direct) : pgExecutor(directPg(db)!);
    expect(exec.engine).toBe(testDb.engine);
    const at = new Date("2026-12-03T10:11:12.345Z");
    const [row] = await exec.write(insertSession, { id: "s1", at, deletedAt: null });
    expect(row).toMatchObject({ id: "s1", createdAt: at, deletedAt: null });
    // Prisma reads what the executor wrote, and the other way round.
    expect((await db.chatSession.findUnique({ where: { id: "s1" } }))!.createdAt).toEqual(at);
    await db.message.create({ data: { id: "m1", sessionId: "s1", role: "agent", text: "x", stopped: true } });
    const [read] = await exec.read(sessionWithFlag, { id: "s1" });
    expect(read).toEqual({ id: "s1", createdAt: at, deletedAt: null, stopped: true });
  });
});
