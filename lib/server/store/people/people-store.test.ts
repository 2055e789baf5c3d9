import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../../tests/helpers/fixture-db";
import { createPeopleStore, type PeopleStore } from "./people-store";

// The people store's statements on whichever engine the suite runs (SQLite, or PostgreSQL under `npm run test:pg`).
let t: StoreTestDb;
let fixture: FixtureDb;
let store: PeopleStore;

beforeEach(async () => {
  t = await openStoreTestDb("parley_peoplestore");
  fixture = t.fixture;
  store = createPeopleStore(t.db.exec);
});

afterEach(() => t.close());

const HOUR = 3_600_000;
const T0 = new Date("2026-12-07T10:00:00.000Z");
const later = (ms: number) => new Date(T0.getTime() + ms);
const link = (id: string, expiresAt = later(HOUR)) => ({ id, secretHash: `hash-${id}`, expiresAt });
const add = (name: string, linkId: string, { admin = false, at = T0 } = {}) => store.add({ name, admin, addedBy: "local", at }, link(linkId));

describe("people", () => {
  it("are added once per name, with their first link, and listed oldest first", async () => {
    expect(await add("bob", "link-bob-1", { at: later(1) })).toMatchObject({ id: "bob", admin: false, addedBy: "local", createdAt: later(1) });
    expect(await add("ann", "link-ann-1", { admin: true, at: later(2) })).toMatchObject({ id: "ann", admin: true });
    // Taken: nothing is written, not even the link.
    expect(await add("bob", "link-bob-2", { admin: true })).toBeNull();
    expect(await store.findLink("link-bob-2")).toBeNull();
    expect((await store.list()).map((p) => [p.id, p.admin])).toEqual([
      ["bob", false],
      ["ann", true],
    ]);
    expect(await store.find("ann")).toMatchObject({ id: "ann", admin: true });
    expect(await store.find("nobody")).toBeNull();
    expect(await store.findLink("link-bob-1")).toMatchObject({ userId: "bob", secretHash: "hash-link-bob-1", expiresAt: later(HOUR), usedAt: null });
  });

  it("of two adds racing for one name, one wins", async () => {
    const results = await Promise.all([add("cy", "link-cy-a"), add("cy", "link-cy-b")]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await fixture.signInLink.count({ where: { userId: "cy" } })).toBe(1);
  });

  it("go with their unused links when removed; a spent link stays, and a second removal finds no one", async () => {
    await add("bob", "link-bob-1");
    expect(await store.spendLink("link-bob-1", later(1))).toBe("bob");
    expect(await store.replaceLinks("bob", link("link-bob-2"), later(2))).toBe(true);
    await add("ann", "link-ann-1");
    expect(await store.remove("bob")).toMatchObject({ id: "bob" });
    expect(await store.find("bob")).toBeNull();
    expect(await store.findLink("link-bob-2")).toBeNull();
    expect(await store.findLink("link-bob-1")).toMatchObject({ usedAt: later(1) });
    expect(await store.findLink("link-ann-1")).not.toBeNull();
    expect(await store.remove("bob")).toBeNull();
  });
});

describe("a sign-in link", () => {
  it("is spent once: the second spend, and any after, gets no one", async () => {
    await add("bob", "link-bob-1");
    expect(await store.spendLink("link-bob-1", later(1))).toBe("bob");
    expect(await store.spendLink("link-bob-1", later(2))).toBeNull();
    expect(await store.findLink("link-bob-1")).toMatchObject({ usedAt: later(1) });
    expect(await store.spendLink("no-such-link", later(1))).toBeNull();
  });

  it("is spent once when two browsers race with it", async () => {
    for (let round = 0; round < 10; round++) {
      await add(`p${round}`, `link-${round}`);
      const spent = await Promise.all([store.spendLink(`link-${round}`, later(1)), store.spendLink(`link-${round}`, later(1)), store.spendLink(`link-${round}`, later(2))]);
      expect(spent.filter((who) => who !== null)).toEqual([`p${round}`]);
    }
  });

  it("works until it expires, and not from then on", async () => {
    await add("bob", "link-bob-1");
    await add("ann", "link-ann-1");
    expect(await store.spendLink("link-bob-1", later(HOUR))).toBeNull();
    expect(await store.findLink("link-bob-1")).toMatchObject({ usedAt: null });
    expect(await store.spendLink("link-ann-1", later(HOUR - 1))).toBe("ann");
  });

  it("replaces the person's unused ones when a new one is made; none is made for no one", async () => {
    await add("bob", "link-bob-1");
    expect(await store.replaceLinks("bob", link("link-bob-2"), later(1))).toBe(true);
    expect(await store.findLink("link-bob-1")).toBeNull();
    expect(await store.spendLink("link-bob-2", later(2))).toBe("bob");
    expect(await store.replaceLinks("nobody", link("link-nobody"), later(1))).toBe(false);
    expect(await store.findLink("link-nobody")).toBeNull();
  });
});
