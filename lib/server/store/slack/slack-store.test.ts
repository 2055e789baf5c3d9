import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStoreTestDb, type StoreTestDb } from "../../../../tests/helpers/fixture-db";
import { createEmailStore } from "../email/email-store";
import { createSlackStore } from "./slack-store";

let t: StoreTestDb;
beforeEach(async () => {
  t = await openStoreTestDb("parley_slackstore");
});
afterEach(() => t.close());

describe("the people a surface reaches", () => {
  it("Slack: the linked users of a list of people (any number, in one statement); a user is one person's", async () => {
    const store = createSlackStore(t.db.exec);
    expect(await store.link("ann", "U0ANN00001")).toBe(true);
    expect(await store.link("bob", "U0BOB00001")).toBe(true);
    expect(await store.link("cat", "U0ANN00001")).toBe(false);
    expect(await store.slackUsersOf(["ann", "bob", "cat"])).toEqual(
      new Map([
        ["ann", "U0ANN00001"],
        ["bob", "U0BOB00001"],
      ]),
    );
    expect(await store.slackUsersOf([])).toEqual(new Map());
    expect(await store.personOf("U0BOB00001")).toBe("bob");
    // A new user for ann replaces her old one, which is free again.
    expect(await store.link("ann", "U0ANN00002")).toBe(true);
    expect(await store.link("cat", "U0ANN00001")).toBe(true);
  });

  it("email: the addresses of those who want questions by mail", async () => {
    const store = createEmailStore(t.db.exec);
    expect(await store.setEmail("ann", "ann@example.com", true)).toBe(true);
    expect(await store.setEmail("bob", "bob@example.com", false)).toBe(true);
    expect(await store.setEmail("cat", "ann@example.com", true)).toBe(false);
    expect(await store.emailsOf(["ann", "bob", "cat"])).toEqual(new Map([["ann", "ann@example.com"]]));
  });
});
