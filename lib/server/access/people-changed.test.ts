import { describe, expect, it } from "vitest";
import type { Parley } from "../app";
import { nodesOnABus, type BusNode } from "../../../tests/helpers/bus-nodes";
import { LOCAL_OWNER } from "../../protocol/access";
import { PEOPLE_CACHE_MS } from "./people-cache";

// Two nodes on one database with an in-process bus between them: what one does to people, the other believes.
const TOKEN = "server-token-0123456789";
const cluster = nodesOnABus("parley_people_nodes", TOKEN);

const cookieOf = async (node: { parley: Parley }, owner: string) => `${node.parley.access.browserSessions.cookieName}=${await node.parley.access.browserSessions.issue(owner)}`;
const who = async (node: { parley: Parley }, cookie: string) => (await node.parley.access.authenticator.authenticate({ cookie }))?.ownerId ?? null;
const tick = () => new Promise((r) => setImmediate(r));

describe("people on several nodes", () => {
  it("a removal on one node refuses the person's cookie on every node at once, and each checks its sockets again", async () => {
    const [a, b] = cluster.nodes as [BusNode, BusNode];
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
    const [a, b] = cluster.nodes as [BusNode, BusNode];
    await a.parley.people.add("bob", { addedBy: LOCAL_OWNER });
    await tick();
    const cookie = await cookieOf(a, "bob");
    expect(await who(b, cookie)).toBe("bob");
    cluster.bus.up = false;
    await a.parley.people.remove("bob");
    expect(await who(a, cookie)).toBeNull();
    // Node b believes what it read a moment ago, for a moment at most.
    expect(await who(b, cookie)).toBe("bob");
    cluster.clock.advance(PEOPLE_CACHE_MS);
    expect(await who(b, cookie)).toBeNull();
  });

  it("a person added on one node signs in on another at once, even one the bus does not reach", async () => {
    const [a, b] = cluster.nodes as [BusNode, BusNode];
    expect(await who(b, await cookieOf(b, "ann"))).toBeNull();
    cluster.bus.up = false;
    const { link } = await a.parley.people.add("ann", { addedBy: LOCAL_OWNER });
    expect(await b.parley.people.spendLink(link)).toMatchObject({ name: "ann" });
    // b's cache (read a moment ago, without ann) is looked past for a name it does not hold.
    expect(await who(b, await cookieOf(b, "ann"))).toBe("ann");
  });
});
