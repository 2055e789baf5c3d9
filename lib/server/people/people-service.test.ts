import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOCAL_OWNER } from "../../protocol/access";
import { SIGN_IN_LINK_PATTERN, SIGN_IN_LINK_TTL_MS } from "../../protocol/teams";
import { startFakeParley, type FakeParley } from "../../../tests/helpers/fakes";

let fake: FakeParley;
beforeEach(async () => {
  fake = await startFakeParley();
});
afterEach(() => fake.close());

const people = () => fake.parley.people;

describe("adding a person", () => {
  it("gives them a one-time link that expires a day later; a name taken, the administrator's, or no name at all is refused", async () => {
    const { person, link, expiresAt } = await people().add("bob", { addedBy: LOCAL_OWNER });
    expect(person).toEqual({ name: "bob", displayName: "bob", admin: false, createdAt: new Date(fake.clock.now()).toISOString() });
    expect(link).toMatch(SIGN_IN_LINK_PATTERN);
    expect(expiresAt).toBe(new Date(fake.clock.now() + SIGN_IN_LINK_TTL_MS).toISOString());
    await expect(people().add("bob", { addedBy: LOCAL_OWNER, admin: true })).rejects.toMatchObject({ code: "person_exists", message: expect.stringContaining("parley user link bob") });
    await expect(people().add(LOCAL_OWNER, { addedBy: LOCAL_OWNER })).rejects.toMatchObject({ code: "bad_request" });
    await expect(people().add("not a name", { addedBy: LOCAL_OWNER })).rejects.toMatchObject({ code: "bad_request" });
    expect(await people().list()).toEqual([person]);
  });
});

describe("a sign-in link", () => {
  it("signs its person in once; then says it was used, and how to get another", async () => {
    const { link } = await people().add("bob", { addedBy: LOCAL_OWNER, admin: true });
    expect(await people().spendLink(link)).toMatchObject({ name: "bob", admin: true });
    await expect(people().spendLink(link)).rejects.toMatchObject({
      code: "unauthorized",
      message: "This sign-in link was already used. Ask for a new one: parley user link bob",
    });
  });

  it("says so when it expired, when it is not whole, and when it is not known (a wrong secret, or replaced by a newer one)", async () => {
    const { link } = await people().add("bob", { addedBy: LOCAL_OWNER });
    fake.clock.advance(SIGN_IN_LINK_TTL_MS);
    await expect(people().spendLink(link)).rejects.toMatchObject({ code: "unauthorized", message: expect.stringMatching(/^This sign-in link expired at .*parley user link bob$/) });
    await expect(people().spendLink(link.slice(0, 12))).rejects.toMatchObject({ code: "unauthorized", message: expect.stringContaining("not a whole sign-in link") });

    const fresh = await people().newLink("bob");
    expect(fresh.link).toMatch(SIGN_IN_LINK_PATTERN);
    const [, id, secret] = SIGN_IN_LINK_PATTERN.exec(fresh.link)!;
    const wrongSecret = `sil_${id}_${secret!.startsWith("x") ? "y" : "x"}${secret!.slice(1)}`;
    await expect(people().spendLink(wrongSecret)).rejects.toMatchObject({ code: "unauthorized", message: expect.stringContaining("not known here") });
    // Replaced by a newer one: it is known no more.
    await people().newLink("bob");
    await expect(people().spendLink(fresh.link)).rejects.toMatchObject({ code: "unauthorized", message: expect.stringContaining("not known here") });
  });

  it("is made only for a person", async () => {
    await expect(people().newLink("nobody")).rejects.toMatchObject({ code: "not_found:person" });
    await expect(people().newLink(LOCAL_OWNER)).rejects.toMatchObject({ code: "bad_request", message: expect.stringContaining("server token") });
  });
});

describe("removing a person", () => {
  it("revokes their API tokens (their sockets are dropped with them), and leaves everyone else's", async () => {
    const { link } = await people().add("bob", { addedBy: LOCAL_OWNER });
    const { apiTokens } = fake.parley.access;
    const bobs = [await apiTokens.create({ ownerId: "bob", name: "a" }), await apiTokens.create({ ownerId: "bob", name: "b" })];
    const mine = await apiTokens.create({ ownerId: LOCAL_OWNER, name: "mine" });
    await apiTokens.revoke(bobs[1]!.info.id);
    const dropped: string[] = [];
    fake.parley.events.on("api-token.revoked", ({ id }) => dropped.push(id));
    let rechecks = 0;
    fake.parley.events.on("cookies.revoked", () => rechecks++);

    const removed = await people().remove("bob");
    expect(removed).toEqual({ person: expect.objectContaining({ name: "bob" }), revokedTokens: [bobs[0]!.info.id] });
    expect(dropped).toEqual([bobs[0]!.info.id]);
    expect(rechecks).toBe(1);
    const listed = await apiTokens.list();
    expect(listed.find((t) => t.id === bobs[0]!.info.id)?.revokedAt).not.toBeNull();
    expect(listed.find((t) => t.id === mine.info.id)?.revokedAt).toBeNull();
    expect(await people().list()).toEqual([]);
    // Their unused link went with them.
    await expect(people().spendLink(link)).rejects.toMatchObject({ code: "unauthorized", message: expect.stringContaining("not known here") });
    await expect(people().remove("bob")).rejects.toMatchObject({ code: "not_found:person" });
    await expect(people().remove(LOCAL_OWNER)).rejects.toMatchObject({ code: "bad_request" });
  });
});

describe("renaming a person", () => {
  it("gives them, or the administrator, one display name everyone reads, told to every tab; ids stay", async () => {
    const told: unknown[] = [];
    fake.parley.events.on("person.renamed", (r) => told.push(r));
    await people().add("alice", { addedBy: LOCAL_OWNER });
    expect(await people().names()).toEqual({ local: "Administrator", alice: "alice" });

    expect(await people().rename(LOCAL_OWNER, "Boss")).toEqual({ name: LOCAL_OWNER, displayName: "Boss" });
    // By the name she is shown by, or by her id.
    expect(await people().rename("alice", "Ann")).toEqual({ name: "alice", displayName: "Ann" });
    expect(await people().rename("Ann", "Annie")).toEqual({ name: "alice", displayName: "Annie" });
    expect(await people().names()).toEqual({ local: "Boss", alice: "Annie" });
    expect((await people().list()).map((p) => [p.name, p.displayName])).toEqual([["alice", "Annie"]]);
    expect((await people().nameOf())("alice")).toBe("Annie");
    // Told once each audience is read, in the order of the renames.
    await expect
      .poll(() => told)
      .toEqual([
        { name: LOCAL_OWNER, displayName: "Boss" },
        { name: "alice", displayName: "Ann" },
        { name: "alice", displayName: "Annie" },
      ]);
  });

  it("refuses a name someone else goes by (id or display name, in any case), a name that is none, and nobody", async () => {
    await people().add("alice", { addedBy: LOCAL_OWNER });
    await people().add("bob", { addedBy: LOCAL_OWNER });
    await expect(people().rename("alice", "BOB")).rejects.toMatchObject({ code: "person_exists", message: '"bob" is already bob\'s name: pick another.' });
    await expect(people().rename("alice", "administrator")).rejects.toMatchObject({ code: "person_exists", message: expect.stringContaining("the administrator's name") });
    await expect(people().rename("alice", "Ann Lee")).rejects.toMatchObject({ code: "bad_request" });
    await expect(people().rename("nobody", "Zed")).rejects.toMatchObject({ code: "not_found:person" });
    // A new person may not take a name someone is shown by.
    await people().rename("bob", "robert");
    await expect(people().add("Robert", { addedBy: LOCAL_OWNER })).rejects.toMatchObject({ code: "person_exists" });
    await expect(people().add("Administrator", { addedBy: LOCAL_OWNER })).rejects.toMatchObject({ code: "person_exists" });
  });

  it("goes back to their default name, and a removed person's name is free again", async () => {
    await people().add("alice", { addedBy: LOCAL_OWNER });
    await people().rename(LOCAL_OWNER, "Boss");
    await people().rename(LOCAL_OWNER, "Administrator");
    await people().rename("alice", "Ann");
    expect((await people().remove("alice")).person).toMatchObject({ name: "alice", displayName: "Ann" });
    await people().add("carol", { addedBy: LOCAL_OWNER });
    expect(await people().rename("carol", "Ann")).toEqual({ name: "carol", displayName: "Ann" });
    expect(await fake.fixture.displayName.findMany({ orderBy: { personId: "asc" } })).toMatchObject([{ personId: "carol", name: "Ann" }]);
  });

  it("checks who may rename once the name is known to mean someone", async () => {
    await people().add("alice", { addedBy: LOCAL_OWNER });
    const mayNot = (id: string) => {
      if (id !== "bob") throw new Error(`not ${id}`);
    };
    await expect(people().rename("alice", "Ann", mayNot)).rejects.toThrow("not alice");
    expect((await people().names()).alice).toBe("alice");
  });
});
