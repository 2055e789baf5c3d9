import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParley, type Parley } from "../app";
import { createClusterLink, type ClusterLink } from "../cluster/cluster-link";
import { createDb } from "../store/db/client";
import { FakePool, ManualClock } from "../../../tests/helpers/fakes";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";

// Two nodes on one database with an in-process bus between them.
let testDb: TestDatabase;
let nodes: Array<{ parley: Parley; link: ClusterLink }>;

beforeEach(async () => {
  testDb = await createTestDatabase("parley_revoke_token");
  const clock = new ManualClock();
  nodes = [];
  for (let i = 0; i < 2; i++) {
    const db = await createDb(testDb.url);
    const link = createClusterLink();
    const parley = await createParley(
      { db, pool: new FakePool(1), functions: [{ name: "chat", description: "chat" }], clock, cluster: link },
      { inboxPollMs: 60_000, access: { token: "server-token-0123456789" } },
    );
    nodes.push({ parley, link });
  }
  for (const node of nodes) {
    node.link.attach({
      send: (m) => {
        for (const other of nodes) if (other !== node) setImmediate(() => other.link.receive(m));
      },
      status: () => "connected",
    });
  }
});

afterEach(async () => {
  for (const n of nodes) await n.parley.close().catch(() => {});
  await testDb.drop();
});

describe("revoking an API token", () => {
  it("refuses it and tells this node's transports before it answers, and every other node over the bus", async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const { token, info } = await a.parley.access.apiTokens.create({ ownerId: "local", name: "ci" });
    const heard: string[] = [];
    a.parley.events.on("api-token.revoked", ({ id }) => heard.push(`a:${id}`));
    const heardOnB = new Promise<string>((resolve) => b.parley.events.once("api-token.revoked", ({ id }) => resolve(`b:${id}`)));

    const revoked = await a.parley.revokeApiToken(info.id);
    expect(revoked).toMatchObject({ id: info.id, name: "ci", revokedAt: expect.any(String) });
    expect(heard).toEqual([`a:${info.id}`]);
    expect(await heardOnB).toBe(`b:${info.id}`);
    for (const node of [a, b]) expect(await node.parley.access.authenticator.authenticate({ bearer: token })).toBeNull();
  });

  it("refuses an id of no token, and tells nobody", async () => {
    const [a] = nodes as [(typeof nodes)[0]];
    const heard: string[] = [];
    a.parley.events.on("api-token.revoked", ({ id }) => heard.push(id));
    await expect(a.parley.revokeApiToken("no-such-token")).rejects.toMatchObject({ code: "bad_request" });
    expect(heard).toEqual([]);
  });
});
