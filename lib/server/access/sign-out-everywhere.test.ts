import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOCAL_OWNER } from "../../protocol/access";
import { createParley, type Parley } from "../app";
import { createClusterLink, type ClusterLink } from "../cluster/cluster-link";
import { createDb } from "../store/db/client";
import { FakePool, ManualClock } from "../../../tests/helpers/fakes";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";
import { EPOCH_CACHE_MS } from "./session-epoch";

// Two nodes on one database (same token, same cookie key) with an in-process bus between them.
const TOKEN = "server-token-0123456789";
let testDb: TestDatabase;
let clock: ManualClock;
let nodes: Array<{ parley: Parley; link: ClusterLink }>;
let busUp = true;

async function startNode(token = TOKEN) {
  const db = await createDb(testDb.url);
  const link = createClusterLink();
  const parley = await createParley({ db, pool: new FakePool(1), functions: [{ name: "chat", description: "chat" }], clock, cluster: link }, { inboxPollMs: 60_000, access: { token } });
  return { parley, link };
}

beforeEach(async () => {
  busUp = true;
  testDb = await createTestDatabase("parley_sign_out");
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

/** The Cookie header of a browser signed in on `node`. */
async function signIn(node: { parley: Parley }): Promise<string> {
  const { browserSessions } = node.parley.access;
  return `${browserSessions.cookieName}=${await browserSessions.issue(LOCAL_OWNER)}`;
}
const signedIn = async (node: { parley: Parley }, cookie: string) => (await node.parley.access.authenticator.authenticate({ cookie })) !== null;
const tick = () => new Promise((r) => setImmediate(r));

describe("signing out everywhere", () => {
  it("refuses on every node a cookie issued before it, and accepts one issued after", async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const before = await signIn(a);
    expect(await signedIn(a, before)).toBe(true);
    expect(await signedIn(b, before)).toBe(true);
    const heard: string[] = [];
    a.parley.events.on("cookies.revoked", () => heard.push("a"));
    b.parley.events.on("cookies.revoked", () => heard.push("b"));

    const result = await a.parley.signOutEverywhere();
    expect(result).toEqual({ signedOut: "everywhere", at: new Date(clock.now()).toISOString() });
    await tick();
    expect(heard.sort()).toEqual(["a", "b"]);
    expect(await signedIn(a, before)).toBe(false);
    expect(await signedIn(b, before)).toBe(false);

    const after = await signIn(a);
    expect(await signedIn(a, after)).toBe(true);
    expect(await signedIn(b, after)).toBe(true);
    expect(await signedIn(b, await signIn(b))).toBe(true);
  });

  it("reaches a node the bus does not within the epoch's cache time", async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const before = await signIn(a);
    expect(await signedIn(b, before)).toBe(true);
    busUp = false;
    await a.parley.signOutEverywhere();
    expect(await signedIn(a, before)).toBe(false);
    // Node b has not been told; it believes what it read for a moment at most.
    clock.advance(EPOCH_CACHE_MS);
    expect(await signedIn(b, before)).toBe(false);
  });

  it("lets a node whose epoch is cached accept a cookie another node issued in a newer one", async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    expect(await signedIn(b, await signIn(b))).toBe(true);
    busUp = false;
    await a.parley.signOutEverywhere();
    const after = await signIn(a);
    // Within b's cache time: the cookie fails against the cached epoch, and passes against the database's.
    expect(await signedIn(b, after)).toBe(true);
  });

  it("leaves the server token and API tokens alone", async () => {
    const [a] = nodes as [(typeof nodes)[0]];
    await a.parley.people.add("ann", { addedBy: LOCAL_OWNER });
    const { token } = await a.parley.access.apiTokens.create({ ownerId: "ann", name: "script" });
    await a.parley.signOutEverywhere();
    expect(await a.parley.access.authenticator.authenticate({ bearer: TOKEN })).not.toBeNull();
    expect(await a.parley.access.authenticator.authenticate({ bearer: token })).not.toBeNull();
  });
});

describe("a session cookie", () => {
  it("is refused by a node started with another token on the same database", async () => {
    const cookie = await signIn(nodes[0]!);
    const other = await startNode("another-token-0123456789");
    nodes.push(other);
    expect(await signedIn(nodes[1]!, cookie)).toBe(true);
    expect(await signedIn(other, cookie)).toBe(false);
    expect(await signedIn(other, await signIn(other))).toBe(true);
  });
});
