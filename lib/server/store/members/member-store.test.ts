import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../../tests/helpers/fixture-db";
import type { Db } from "../db/client";
import * as S from "../sessions/session-statements";
import { createMemberStore, type MemberStore } from "./member-store";

// The members store and the reads that see through it, on whichever engine the suite runs (SQLite, or PostgreSQL under `npm run test:pg`).
let t: StoreTestDb;
let db: Db;
let fixture: FixtureDb;
let store: MemberStore;

const at = (second: number) => new Date(Date.UTC(2026, 11, 7, 9, 0, second));

beforeEach(async () => {
  t = await openStoreTestDb("parley_members");
  ({ db, fixture } = t);
  store = createMemberStore(db.exec);
  await db.exec.write(S.insertSession, { id: "s1", ownerId: "alice", title: "Plans", at: at(0) });
  await db.exec.write(S.insertSession, { id: "s2", ownerId: "carol", title: "Carol's", at: at(1) });
  await db.exec.write(S.insertSession, { id: "s3", ownerId: "bob", title: "Bob's", at: at(2) });
  for (const id of ["bob", "carol", "dave"]) await fixture.user.create({ data: { id, addedBy: "local" } });
});
afterEach(() => t.close());

const add = (sessionId: string, userId: string, second = 10) => store.add({ sessionId, userId, addedBy: "alice", at: at(second) });
const names = async (sessionId: string) => (await store.people(sessionId))?.map((m) => `${m.role}:${m.user}`);

describe("members", () => {
  it("the owner first, then members oldest first; adding twice changes nothing, nor does adding the owner", async () => {
    expect(await names("s1")).toEqual(["owner:alice"]);
    expect(await add("s1", "dave", 12)).toBe(true);
    expect(await add("s1", "bob", 11)).toBe(true);
    expect(await add("s1", "bob", 20)).toBe(false);
    expect(await add("s1", "alice")).toBe(false);
    expect(await store.people("s1")).toEqual([
      { user: "alice", role: "owner", addedAt: at(0).toISOString() },
      { user: "bob", role: "member", addedAt: at(11).toISOString() },
      { user: "dave", role: "member", addedAt: at(12).toISOString() },
    ]);
    const [bob] = await fixture.sessionMember.findMany({ where: { sessionId: "s1", userId: "bob" } });
    expect(bob).toMatchObject({ addedBy: "alice", createdAt: at(11) });
  });

  it("removing is idempotent; an unknown session has no people, nor one whose delete has begun, which takes no member", async () => {
    await add("s1", "bob");
    expect(await store.remove({ sessionId: "s1", userId: "bob" })).toBe(true);
    expect(await store.remove({ sessionId: "s1", userId: "bob" })).toBe(false);
    expect(await names("s1")).toEqual(["owner:alice"]);
    expect(await store.people("nope")).toBeNull();
    expect(await add("nope", "bob")).toBe(false);

    await add("s1", "carol");
    await db.exec.write(S.markDeleted, { id: "s1", at: at(30) });
    expect(await store.people("s1")).toBeNull();
    expect(await add("s1", "dave")).toBe(false);
    // Its members are still read for the delete's announcement, then go with it.
    expect(await store.names("s1")).toEqual(["carol"]);
    await db.exec.changes(S.removeDeleted, { id: "s1" });
    expect(await fixture.sessionMember.count({ where: { sessionId: "s1" } })).toBe(0);
  });

  it("who shares a chat with someone: owners of chats they are in, and the members beside them or in their own; not a deleted chat's", async () => {
    await add("s1", "bob");
    await add("s1", "dave");
    await add("s2", "alice");
    expect([...(await store.sharingWith("bob"))].sort()).toEqual(["alice", "dave"]);
    expect([...(await store.sharingWith("alice"))].sort()).toEqual(["bob", "carol", "dave"]);
    expect([...(await store.sharingWith("carol"))].sort()).toEqual(["alice"]);
    // Bob's own chat is shared with nobody; erin shares nothing.
    expect([...(await store.sharingWith("erin"))]).toEqual([]);
    await fixture.chatSession.update({ where: { id: "s2" }, data: { deletedAt: new Date() } });
    expect([...(await store.sharingWith("carol"))]).toEqual([]);
  });

  it("a person is someone with a User row", async () => {
    expect(await store.isPerson("bob")).toBe(true);
    expect(await store.isPerson("erin")).toBe(false);
  });
});

describe("seeing through membership", () => {
  const access = async (id: string, viewer: string) => {
    const [row] = await db.exec.rows(S.sessionAccess, { id, viewer });
    return row ? { ownerId: row.ownerId, member: row.member === true || row.member === 1 } : null;
  };

  it("each access check reads the owner and whether the viewer is a member, in one statement", async () => {
    await add("s1", "bob");
    await fixture.run.create({ data: { id: "r1", sessionId: "s1", ownerId: "alice", functionName: "f", input: "{}", status: "waiting_input" } });
    await fixture.question.create({ data: { id: "q1", sessionId: "s1", runId: "r1", kind: "confirm", prompt: "?", owner: "f", pendingId: "p1", targetDigest: "d", status: "pending" } });
    expect(await access("s1", "bob")).toEqual({ ownerId: "alice", member: true });
    expect(await access("s1", "carol")).toEqual({ ownerId: "alice", member: false });
    expect(await access("s1", "alice")).toEqual({ ownerId: "alice", member: false });
    const member = (row: { member: unknown } | undefined) => row?.member === true || row?.member === 1;
    expect(member((await db.exec.rows(S.questionAccess, { id: "q1", viewer: "bob" }))[0])).toBe(true);
    expect(member((await db.exec.rows(S.questionAccess, { id: "q1", viewer: "carol" }))[0])).toBe(false);
    expect(member((await db.exec.rows(S.runAccess, { id: "r1", viewer: "bob" }))[0])).toBe(true);
    expect(member((await db.exec.rows(S.runAccess, { id: "r1", viewer: "carol" }))[0])).toBe(false);
  });

  it("a person's list holds what they own and what is shared with them, most recent first, each marked by its members", async () => {
    await add("s2", "bob");
    await add("s1", "bob");
    await add("s1", "dave");
    const listed = async (ownerId: string | null) => (await db.exec.rows(S.sessionsOf, { ownerId, limit: 10 })).map((r) => [r.id, (r.memberNames ?? "").split(" ").filter(Boolean).sort().join(",")]);
    expect(await listed("bob")).toEqual([
      ["s3", ""],
      ["s2", "bob"],
      ["s1", "bob,dave"],
    ]);
    expect(await listed("alice")).toEqual([["s1", "bob,dave"]]);
    expect(await listed("erin")).toEqual([]);
    expect((await listed(null)).map(([id]) => id)).toEqual(["s3", "s2", "s1"]);
    await store.remove({ sessionId: "s2", userId: "bob" });
    expect((await listed("bob")).map(([id]) => id)).toEqual(["s3", "s1"]);
    expect((await db.exec.rows(S.liveSession, { id: "s2" }))[0]!.memberNames).toBeNull();
  });
});
