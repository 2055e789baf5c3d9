import { describe, expect, it } from "vitest";
import type { Parley } from "../app";
import { nodesOnABus, type BusNode } from "../../../tests/helpers/bus-nodes";
import { LOCAL_OWNER } from "../../protocol/access";
import { EPOCH_CACHE_MS } from "./session-epoch";

// Two nodes on one database (same token, same cookie key) with an in-process bus between them.
const TOKEN = "server-token-0123456789";
const cluster = nodesOnABus("parley_sign_out", TOKEN);

/** The Cookie header of a browser signed in on `node`. */
async function signIn(node: { parley: Parley }): Promise<string> {
  const { browserSessions } = node.parley.access;
  return `${browserSessions.cookieName}=${await browserSessions.issue(LOCAL_OWNER)}`;
}
const signedIn = async (node: { parley: Parley }, cookie: string) => (await node.parley.access.authenticator.authenticate({ cookie })) !== null;
const tick = () => new Promise((r) => setImmediate(r));

describe("signing out everywhere", () => {
  it("refuses on every node a cookie issued before it, and accepts one issued after", async () => {
    const [a, b] = cluster.nodes as [BusNode, BusNode];
    const before = await signIn(a);
    expect(await signedIn(a, before)).toBe(true);
    expect(await signedIn(b, before)).toBe(true);
    const heard: string[] = [];
    a.parley.events.on("cookies.revoked", () => heard.push("a"));
    b.parley.events.on("cookies.revoked", () => heard.push("b"));

    const result = await a.parley.signOutEverywhere();
    expect(result).toEqual({ signedOut: "everywhere", at: new Date(cluster.clock.now()).toISOString() });
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
    const [a, b] = cluster.nodes as [BusNode, BusNode];
    const before = await signIn(a);
    expect(await signedIn(b, before)).toBe(true);
    cluster.bus.up = false;
    await a.parley.signOutEverywhere();
    expect(await signedIn(a, before)).toBe(false);
    // Node b has not been told; it believes what it read for a moment at most.
    cluster.clock.advance(EPOCH_CACHE_MS);
    expect(await signedIn(b, before)).toBe(false);
  });

  it("lets a node whose epoch is cached accept a cookie another node issued in a newer one", async () => {
    const [a, b] = cluster.nodes as [BusNode, BusNode];
    expect(await signedIn(b, await signIn(b))).toBe(true);
    cluster.bus.up = false;
    await a.parley.signOutEverywhere();
    const after = await signIn(a);
    // Within b's cache time: the cookie fails against the cached epoch, and passes against the database's.
    expect(await signedIn(b, after)).toBe(true);
  });

  it("leaves the server token and API tokens alone", async () => {
    const [a] = cluster.nodes as [BusNode];
    await a.parley.people.add("ann", { addedBy: LOCAL_OWNER });
    const { token } = await a.parley.access.apiTokens.create({ ownerId: "ann", name: "script" });
    await a.parley.signOutEverywhere();
    expect(await a.parley.access.authenticator.authenticate({ bearer: TOKEN })).not.toBeNull();
    expect(await a.parley.access.authenticator.authenticate({ bearer: token })).not.toBeNull();
  });
});

describe("a session cookie", () => {
  it("is refused by a node started with another token on the same database", async () => {
    const cookie = await signIn(cluster.nodes[0]!);
    const other = await cluster.start("another-token-0123456789");
    cluster.nodes.push(other);
    expect(await signedIn(cluster.nodes[1]!, cookie)).toBe(true);
    expect(await signedIn(other, cookie)).toBe(false);
    expect(await signedIn(other, await signIn(other))).toBe(true);
  });
});
