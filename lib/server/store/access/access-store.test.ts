import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../../tests/helpers/fixture-db";
import type { Db } from "../db/client";
import { createAccessStore, type AccessStore } from "./access-store";

// Visibility's reads, on whichever engine the suite runs (SQLite, or PostgreSQL under `npm run test:pg`).
let t: StoreTestDb;
let db: Db;
let fixture: FixtureDb;
let store: AccessStore;

/** EXISTS as either engine gives it (SQLite: 0 or 1). */
const member = (value: unknown) => value === true || value === 1;

beforeEach(async () => {
  t = await openStoreTestDb("parley_access");
  ({ db, fixture } = t);
  store = createAccessStore(db.exec);
  for (const id of ["alice", "bob", "carol"]) await fixture.user.create({ data: { id, addedBy: "local" } });
  await fixture.chatSession.create({ data: { id: "s1", title: "Plans", ownerId: "alice" } });
  await fixture.sessionMember.create({ data: { sessionId: "s1", userId: "bob", addedBy: "alice" } });
  await fixture.run.create({ data: { id: "r1", sessionId: "s1", ownerId: "alice", functionName: "f", input: "{}", status: "waiting_input", startedBy: '{"tokenId":"t1"}' } });
  await fixture.question.create({ data: { id: "q1", sessionId: "s1", runId: "r1", kind: "confirm", prompt: "?", owner: "f", pendingId: "p1", targetDigest: "d", status: "pending" } });
});
afterEach(() => t.close());

describe("access reads", () => {
  it("a session, its questions and its runs each name the owner and whether the viewer is a member", async () => {
    for (const read of [store.session, store.question, store.run]) {
      const id = read === store.session ? "s1" : read === store.question ? "q1" : "r1";
      const bob = await read({ id, viewer: "bob" });
      expect(bob).toMatchObject({ ownerId: "alice", deletedAt: null });
      expect(member(bob!.member)).toBe(true);
      expect(member((await read({ id, viewer: "carol" }))!.member)).toBe(false);
      expect(await read({ id: "nope", viewer: "bob" })).toBeUndefined();
    }
  });

  it("shows a delete that has begun, and who started a question's run", async () => {
    const at = new Date(Date.UTC(2026, 11, 7));
    await fixture.chatSession.update({ where: { id: "s1" }, data: { deletedAt: at } });
    expect(await store.session({ id: "s1", viewer: "alice" })).toMatchObject({ ownerId: "alice", deletedAt: at });
    expect(await store.questionAskedBy("q1")).toEqual({ ownerId: "alice", deletedAt: at, startedBy: '{"tokenId":"t1"}' });
    expect(await store.questionAskedBy("nope")).toBeUndefined();
  });
});
