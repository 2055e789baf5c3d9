import type { WebClient } from "@slack/web-api";
import { describe, expect, it } from "vitest";
import { createSlackPeople } from "./slack-people";

/** Links and addresses in memory, and a Slack workspace that knows `users` (id → email). */
function world(users: Record<string, string>, addresses: Record<string, string>) {
  const links = new Map<string, string>();
  const calls: string[] = [];
  const client = {
    users: {
      info: async ({ user }: { user: string }) => (
        calls.push(`info ${user}`),
        users[user] ? { ok: true, user: { id: user, profile: { email: users[user] } } } : Promise.reject(new Error("user_not_found"))
      ),
      lookupByEmail: async ({ email }: { email: string }) => {
        calls.push(`lookup ${email}`);
        const id = Object.keys(users).find((u) => users[u] === email);
        return id ? { ok: true, user: { id } } : Promise.reject(new Error("users_not_found"));
      },
    },
  } as unknown as Pick<WebClient, "users">;
  const people = createSlackPeople({
    client,
    links: {
      personOf: async (u) => [...links].find(([, id]) => id === u)?.[0] ?? null,
      slackUsersOf: async (names) => new Map([...links].filter(([p]) => names.includes(p))),
      link: async (p, u) => ([...links.values()].includes(u) ? false : (links.set(p, u), true)),
    },
    emails: {
      addressesOf: async (names) => new Map(Object.entries(addresses).filter(([p]) => names.includes(p))),
      personWithEmail: async (email) => Object.entries(addresses).find(([, e]) => e === email.toLowerCase())?.[0] ?? null,
    },
  });
  return { people, links, calls };
}

describe("who a Slack user is in Parley", () => {
  it("finds people's Slack users by their address for DMs, links them, and asks Slack about each unknown address once in a while", async () => {
    const { people, links, calls } = world({ U0ANN00001: "ann@example.com" }, { ann: "ann@example.com", bob: "bob@example.com" });
    expect(await people.slackUsersOf(["ann", "bob", "cat"])).toEqual(new Map([["ann", "U0ANN00001"]]));
    expect(links.get("ann")).toBe("U0ANN00001");
    expect(calls).toEqual(["lookup ann@example.com", "lookup bob@example.com"]);
    // Bob is not asked about again so soon; ann is linked and needs no look-up.
    await people.slackUsersOf(["ann", "bob"]);
    expect(calls).toHaveLength(2);
  });

  it("a clicking Slack user with a person's address answers as them; one Slack does not know, or with no such person, as nobody", async () => {
    const { people, calls } = world({ U0ANN00001: "Ann@Example.com", U0EVE00001: "eve@example.com" }, { ann: "ann@example.com" });
    expect(await people.personOf("U0ANN00001")).toBe("ann");
    expect(await people.personOf("U0ANN00001")).toBe("ann");
    expect(calls.filter((c) => c === "info U0ANN00001")).toHaveLength(1);
    expect(await people.personOf("U0EVE00001")).toBeNull();
    expect(await people.personOf("U0NOBODY01")).toBeNull();
  });
});
