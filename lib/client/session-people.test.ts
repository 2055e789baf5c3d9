import { describe, expect, it } from "vitest";
import type { SessionMember } from "../protocol/teams";
import { nameOfFrom } from "../protocol/display-names";
import { mayManage, mayRename, meOf, membersPath, peopleView, personNameOf, sharedWords, whoseChat } from "./session-people";

const alice = { name: "alice", admin: false };
const bob = { name: "bob", admin: false };
const admin = meOf({ ownerId: "local", via: "cookie", admin: true });
const people: SessionMember[] = [
  { user: "alice", role: "owner", addedAt: "2026-12-07T09:00:00.000Z" },
  { user: "bob", role: "member", addedAt: "2026-12-07T09:01:00.000Z" },
  { user: "carol", role: "member", addedAt: "2026-12-07T09:02:00.000Z" },
];
const rows = (me: Parameters<typeof peopleView>[1]) => peopleView(people, me).rows.map((r) => `${r.user}${r.you ? " (you)" : ""}:${r.action ?? "-"}`);

describe("who I am", () => {
  it("the administrator is who the server says is one (local, or a person added as one)", () => {
    expect(admin).toEqual({ name: "local", admin: true });
    expect(meOf({ ownerId: "bob", via: "cookie", admin: false })).toEqual(bob);
    expect(meOf({ ownerId: "bob", via: "cookie", admin: true })).toEqual({ name: "bob", admin: true });
  });
});

describe("the chat list", () => {
  it("names whose a chat is by their display name: the administrator 'Administrator' until renamed", () => {
    const admins = { ownerId: "local", shared: true };
    expect(whoseChat(admins, bob)).toBe("Administrator’s");
    const nameOf = nameOfFrom({ local: "Boss", alice: "Ann" });
    expect(whoseChat(admins, bob, nameOf)).toBe("Boss’s");
    expect(sharedWords({ ownerId: "alice", shared: true }, bob, nameOf)).toBe("Shared by Ann");
  });

  it("marks a chat shared with me as whose it is, and my own shared chat as shared", () => {
    const hers = { ownerId: "alice", shared: true };
    expect(whoseChat(hers, bob)).toBe("alice’s");
    expect(sharedWords(hers, bob)).toBe("Shared by alice");
    expect(whoseChat(hers, alice)).toBeNull();
    expect(sharedWords(hers, alice)).toBe("Shared");
    expect(sharedWords({ ownerId: "alice", shared: false }, alice)).toBeNull();
    // Not knowing who I am yet, nothing is claimed.
    expect(whoseChat(hers, null)).toBeNull();
  });

  it("offers renaming and deleting to its owner and an administrator", () => {
    expect(mayManage({ ownerId: "alice" }, alice)).toBe(true);
    expect(mayManage({ ownerId: "alice" }, bob)).toBe(false);
    expect(mayManage({ ownerId: "alice" }, admin)).toBe(true);
  });
});

describe("the People panel", () => {
  it("its owner may add and remove; a member may only leave; the owner's row has no button", () => {
    expect(rows(alice)).toEqual(["alice (you):-", "bob:remove", "carol:remove"]);
    expect(peopleView(people, alice).canAdd).toBe(true);
    expect(rows(bob)).toEqual(["alice:-", "bob (you):leave", "carol:-"]);
    expect(peopleView(people, bob)).toMatchObject({ canAdd: false, owner: "alice" });
    expect(rows({ name: "carol", admin: true })).toEqual(["alice:-", "bob:remove", "carol (you):leave"]);
    expect(peopleView(people, null).canAdd).toBe(false);
  });

  it("checks a typed name as the server does", () => {
    expect(personNameOf("  bob ")).toEqual({ ok: true, name: "bob" });
    expect(personNameOf(" ")).toEqual({ ok: false, message: "Type the person’s name." });
    expect(personNameOf("bob smith")).toMatchObject({ ok: false });
    expect(membersPath("s 1")).toBe("/api/sessions/s%201/members");
    expect(membersPath("s1", "bob")).toBe("/api/sessions/s1/members/bob");
  });
});

describe("renaming", () => {
  it("an administrator renames anyone; anyone else only themselves; nobody while who I am is not known", () => {
    expect([mayRename("bob", admin), mayRename("local", admin)]).toEqual([true, true]);
    expect([mayRename("bob", bob), mayRename("alice", bob)]).toEqual([true, false]);
    expect(mayRename("bob", null)).toBe(false);
  });
});
