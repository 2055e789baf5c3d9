import { createServer, connect, type AddressInfo, type Socket } from "node:net";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createPgDatabase, pgReachable } from "../../../../tests/helpers/test-db";
import { ping } from "../health-statements";
import { insertSession, sessionOwner } from "../sessions/session-statements";
import { createDb, isUniqueViolation } from "./client";

const PG_URL = process.env.PARLEY_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/test";
const reachable = await pgReachable(PG_URL);
if (!reachable.ok) console.warn(`[skip] pg-pool.pg.test.ts: no PostgreSQL at ${PG_URL} (${reachable.reason}); set PARLEY_TEST_PG_URL`);

describe.skipIf(!reachable.ok)("the PostgreSQL pool", () => {
  it("outlives the server ending its idle connections (a restart, a failover): no uncaught error, and the next statement runs on a new connection", async () => {
    const t = await createPgDatabase(PG_URL, "parley_pool");
    const db = await createDb(t.url, { poolSize: 3 });
    try {
      await Promise.all([1, 2, 3].map(() => db.exec.rows(ping, {})));
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      const ended = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [new URL(t.url).pathname.slice(1)]);
      await admin.end();
      expect(ended.rowCount).toBeGreaterThan(0);
      // The idle connections hear it (before, the pool's unheard error ended the process: Vitest reports it as an unhandled error).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await db.exec.rows(ping, {})).toHaveLength(1);
    } finally {
      await db.close();
      await t.drop();
    }
  });

  it("sends a transaction's BEGIN and the statements issued together without waiting for each answer: two round trips, not five", async () => {
    const t = await createPgDatabase(PG_URL, "parley_pipeline");
    const proxy = await slowProxy(new URL(PG_URL), ONE_WAY_MS);
    const url = new URL(t.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const db = await createDb(url.toString(), { poolSize: 1 });
    try {
      await db.exec.rows(ping, {});
      proxy.flights = 0;
      const answers = await db.exec.transaction((tx) => Promise.all([tx.rows(ping, {}), tx.rows(ping, {}), tx.rows(ping, {})]));
      expect(answers).toHaveLength(3);
      // BEGIN with the three statements, then COMMIT; one after another it was BEGIN, each statement, COMMIT.
      expect(proxy.flights).toBe(2);
    } finally {
      await db.close();
      proxy.close();
      await t.drop();
    }
  });

  it("rolls back every statement issued together when one fails, answers that one's error, and the connection serves the next transaction", async () => {
    const t = await createPgDatabase(PG_URL, "parley_pipeline_fail");
    const db = await createDb(t.url, { poolSize: 1 });
    const session = (id: string) => ({ id, ownerId: "local", title: id, at: new Date() });
    try {
      const failed = db.exec.transaction((tx) => Promise.all([tx.rows(insertSession, session("a")), tx.rows(insertSession, session("a")), tx.rows(insertSession, session("b"))]));
      await expect(failed).rejects.toSatisfy(isUniqueViolation);
      for (const id of ["a", "b"]) expect(await db.exec.rows(sessionOwner, { id })).toEqual([]);
      await db.exec.transaction((tx) => tx.rows(insertSession, session("c")));
      expect(await db.exec.rows(sessionOwner, { id: "c" })).toEqual([{ ownerId: "local", deletedAt: null }]);
    } finally {
      await db.close();
      await t.drop();
    }
  });
});

const ONE_WAY_MS = 40;

/**
 * A TCP proxy to PostgreSQL that holds every chunk `delayMs` each way, and counts the client's
 * flights: what it sends after an answer has reached it, up to the next answer (one round trip
 * each). Counted, not timed: a timed count flaked under a loaded CI (3.03 round trips).
 */
async function slowProxy(target: URL, delayMs: number): Promise<{ port: number; flights: number; close(): void }> {
  const sockets = new Set<Socket>();
  let answered = true;
  const proxy = {
    port: 0,
    flights: 0,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => (client.destroy(), upstream.destroy()));
    }
    client.on("data", (chunk) => {
      if (answered) proxy.flights++;
      answered = false;
      setTimeout(() => upstream.write(chunk), delayMs);
    });
    upstream.on("data", (chunk) =>
      setTimeout(() => {
        answered = true;
        client.write(chunk);
      }, delayMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.port = (server.address() as AddressInfo).port;
  return proxy;
}
