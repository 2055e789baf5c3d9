import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOCAL_OWNER } from "../../protocol/access";
import { createParley, type Parley } from "../app";
import { createClusterLink, type ClusterLink } from "../cluster/cluster-link";
import { createDb } from "../store/db/client";
import { FakePool, ManualClock } from "../../../tests/helpers/fakes";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";
import { PEOPLE_CACHE_MS } from "./people-cache";

// Two nodes on one database with an in-process bus between them: what one does to people, the other believes.
const TOKEN = "server-token-0123456789";
let testDb: TestDatabase;
let clock: ManualClock;
let nodes: Array<{ parley: Parley; link: ClusterLink }>;
let busUp = true;

async function startNode() {
  const db = await createDb(testDb.url);
  const link = createClusterLink();
  const parley = await createParley({ db, pool: new FakePool(1), functions: [{ name: "chat", description: "chat" }], clock, cluster: link }, { inboxPollMs: 60_000, access: { token: TOKEN } });
  return { parley, link };
}

beforeEach(async () => {
  busUp = true;
  testDb = await createTestDatabase("parley_people_nodes");
  clock = new ManualClock();
  nodes = [await startNode(), await startNode()];
  for (const node of nodes) {
    node.link.attach({
      send: (m) => {
        for (const other of nodes) if (other !== node && busUp) setImmediate(() => other.link.receive(m));
      },
      status: () => (busUp ? "connected" : "lost"),
    });
  }
});

afterEach(async () => {
  for (const n of nodes) await n.parley.close().catch(() => {});
  await testDb.drop();
});

const cookieOf = async (node: { parley: Parley }, owner: string) => `${node.parley.access.browserSessions.cookieName}=${await node.parley.access.browserSessions.issue(owner)}`;
const who = async (node: { parley: Parley }, cookie: string) => (await node.parley.access.authenticator.authenticate({ cookie }))?.ownerId ?? null;
const tick = () => new Promise((r) => setImmediate(r));

describe("people on several nodes", () => {
  it("a removal on one node refuses the person's cookie on every node at once, and each checks its sockets again", async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    await a.parley.people.add("bob", { addedBy: LOCAL_OWNER });
    const cookie = await cookieOf(a, "bob");
    // Both nodes have read bob (and cached him for PEOPLE_CACHE_MS).
    expect(await who(a, cookie)).toBe("bob");
    expect(await who(b, cookie)).toBe("bob");
    const heard: string[] = [];
    a.parley.events.on("cookies.revoked", () => heard.push("a"));
    b.parley.events.on("cookies.revoked", () => heard.push("b"));

    await a.parley.people.remove("bob");
    await tick();
    expect(heard.sort()).toEqual(["a", "b"]);
    // Within the cache time, and the clock has not moved: only the bus can have told b.
    expect(await who(a, cookie)).toBeNull();
    expect(await who(b, cookie)).toBeNull();
    expect(await who(b, await cookieOf(b, LOCAL_OWNER))).toBe(LOCAL_OWNER);
  });

  it("a node the bus does not reach refuses a removed person within the cache time", async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    await a.parley.people.add("bob", { addedBy: LOCAL_OWNER });
    await tick();
    const cookie = await cookieOf(a, "bob");
    expect(await who(b, cookie)).toBe("bob");
    busUp = false;
    await a.parley.people.remove("bob");
    expect(await who(a, cookie)).toBeNull();
    // Node b believes what it read a moment ago, for a moment at most.
    expect(await who(b, cookie)).toBe("bob");
    clock.advance(PEOPLE_CACHE_MS);
    expect(await who(b, cookie)).toBeNull();
  });

  it("a person added on one node signs in on another at once, even one the bus does not reach", async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    expect(await who(b, await cookieOf(b, "ann"))).toBeNull();
    busUp = false;
    const { link } = await a.parley.people.add("ann", { addedBy: LOCAL_OWNER });
    expect(await b.parley.people.spendLink(link)).toMatchObject({ name: "ann" });
    // b's cache (read a moment ago, without ann) is looked past for a name it does not hold.
    expect(await who(b, await cookieOf(b, "ann"))).toBe("ann");
  });
});
