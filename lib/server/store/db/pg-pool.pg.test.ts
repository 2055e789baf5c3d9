import pg from "pg";
import { describe, expect, it } from "vitest";
import { createPgDatabase, pgReachable } from "../../../../tests/helpers/test-db";
import { ping } from "../health-statements";
import { createDb } from "./client";

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
});
