import { afterEach, beforeEach } from "vitest";
import { createParley, type Parley } from "../../lib/server/app";
import { createClusterLink, type ClusterLink } from "../../lib/server/cluster/cluster-link";
import { createDb } from "../../lib/server/store/db/client";
import { FakePool, ManualClock } from "./fakes";
import { createTestDatabase, type TestDatabase } from "./test-db";

export interface BusNode {
  parley: Parley;
  link: ClusterLink;
}

/**
 * Two nodes on one fresh database per test, with an in-process cluster bus between them that a
 * test may take down (`bus.up = false`), and a manual clock. `start(token)` starts another node
 * on the same database, off the bus.
 */
export function nodesOnABus(databasePrefix: string, token: string) {
  const bus = { up: true };
  const state = {} as { testDb: TestDatabase; clock: ManualClock; nodes: BusNode[] };

  async function start(serverToken = token): Promise<BusNode> {
    const db = await createDb(state.testDb.url);
    const link = createClusterLink();
    const parley = await createParley(
      { db, pool: new FakePool(1), functions: [{ name: "chat", description: "chat" }], clock: state.clock, cluster: link },
      { inboxPollMs: 60_000, access: { token: serverToken } },
    );
    return { parley, link };
  }

  beforeEach(async () => {
    bus.up = true;
    state.testDb = await createTestDatabase(databasePrefix);
    state.clock = new ManualClock();
    state.nodes = [await start(), await start()];
    for (const node of state.nodes) {
      node.link.attach({
        send: (m) => {
          for (const other of state.nodes) if (other !== node && bus.up) setImmediate(() => other.link.receive(m));
        },
        status: () => (bus.up ? "connected" : "lost"),
      });
    }
  });

  afterEach(async () => {
    for (const n of state.nodes) await n.parley.close().catch(() => {});
    await state.testDb.drop();
  });

  return {
    bus,
    start,
    get nodes() {
      return state.nodes;
    },
    get clock() {
      return state.clock;
    },
  };
}
