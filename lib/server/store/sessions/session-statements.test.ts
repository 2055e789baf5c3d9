import { expect, it } from "vitest";
import { createTestDatabase } from "../../../../tests/helpers/test-db";
import { openFixtureDb } from "../../../../tests/helpers/fixture-db";
import { createDb } from "../db/client";
import * as S from "./session-statements";

/** Runs on PostgreSQL too (scripts/test-pg.mjs: lib/server/store). */
it("session statements: an owner's list or everyone's, a message stored alike on each lane, the outbox after a cursor, a delete begun once and finished with everything in it", async () => {
  const t = await createTestDatabase();
  const db = await createDb(t.url);
  const fixture = await openFixtureDb(t.url);
  const { exec } = db;
  const at = new Date("2026-01-02T03:04:05.678Z");
  await exec.write(S.insertSession, { id: "s1", ownerId: "a", title: "t", at });
  await exec.write(S.insertSession, { id: "s2", ownerId: "b", title: "t", at: new Date(at.getTime() + 1) });
  expect((await exec.rows(S.sessionsOf, { ownerId: null, limit: 10 })).map((r) => r.id)).toEqual(["s2", "s1"]);
  expect((await exec.rows(S.sessionsOf, { ownerId: "a", limit: 10 })).map((r) => [r.id, r.pendingCount])).toEqual([["s1", 0]]);
  // Named by id first, else by its title (the most recent), and only the owner's own.
  await exec.write(S.insertSession, { id: "t", ownerId: "a", title: "s1", at: new Date(at.getTime() + 2) });
  expect(await exec.rows(S.sessionNamed, { ownerId: "a", name: "s1" })).toEqual([{ id: "s1" }]);
  expect(await exec.rows(S.sessionNamed, { ownerId: "a", name: "t" })).toEqual([{ id: "t" }]);
  expect(await exec.rows(S.sessionNamed, { ownerId: "b", name: "s1" })).toEqual([]);
  expect(await exec.rows(S.sessionNamed, { ownerId: "b", name: "t" })).toEqual([{ id: "s2" }]);
  const m = { id: "m1", sessionId: "s1", runId: null, role: "agent", text: "x", stopped: true, sender: null, createdAt: at };
  await exec.transaction((tx) => tx.changes(S.insertMessage, m));
  await exec.changes(S.insertMessage, { ...m, id: "m2", stopped: false });
  const viaPrisma = await fixture.message.findMany({ orderBy: { id: "asc" } });
  expect(viaPrisma.map((r) => [r.createdAt.toISOString(), r.stopped])).toEqual([
    [at.toISOString(), true],
    [at.toISOString(), false],
  ]);
  expect((await exec.rows(S.saidAfter, { sessionId: "s1", afterAt: null, afterId: null, limit: 10 })).map((r) => r.id)).toEqual(["m1", "m2"]);
  expect((await exec.rows(S.saidAfter, { sessionId: "s1", afterAt: at, afterId: "m1", limit: 10 })).map((r) => r.id)).toEqual(["m2"]);
  expect(await exec.write(S.markDeleted, { id: "s1", at })).toEqual([{ ownerId: "a" }]);
  expect(await exec.rows(S.sessionNamed, { ownerId: "a", name: "s1" })).toEqual([{ id: "t" }]);
  expect(await exec.write(S.markDeleted, { id: "s1", at })).toEqual([]);
  await exec.changes(S.removeDeleted, { id: "s1" });
  expect(await fixture.message.count()).toBe(0);
  await fixture.$disconnect();
  await db.close();
  await t.drop();
});
