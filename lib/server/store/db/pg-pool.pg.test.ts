import pg from "pg";
import { describe, expect, it } from "vitest";
import { createPgDatabase, pgReachable } from "../../../../tests/helpers/test-db";
import { slowDb } from "../../../../tests/helpers/slow-pg-proxy";
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
    const { db, proxy, close } = await slowDb(t.url);
    try {
      const answers = await db.exec.transaction((tx) => Promise.all([tx.rows(ping, {}), tx.rows(ping, {}), tx.rows(ping, {})]));
      expect(answers).toHaveLength(3);
      // BEGIN with the three statements, then COMMIT; one after another it was BEGIN, each statement, COMMIT.
      expect(proxy.flights).toBe(2);
    } finally {
      await close();
      await t.drop();
    }
  });

  it("sends COMMIT with a transaction's last statements (commitWith): two round trips, not three", async () => {
    const t = await createPgDatabase(PG_URL, "parley_commit_with");
    const { db, proxy, close } = await slowDb(t.url);
    const session = (id: string) => ({ id, ownerId: "local", title: id, at: new Date() });
    try {
      const written = await db.exec.transaction(async (tx) => {
        await tx.rows(insertSession, session("a"));
        return tx.commitWith(() => tx.rows(insertSession, session("b")));
      });
      expect(written).toHaveLength(1);
      expect(proxy.flights).toBe(2);
      for (const id of ["a", "b"]) expect(await db.exec.rows(sessionOwner, { id })).toEqual([{ ownerId: "local", deletedAt: null }]);
    } finally {
      await close();
      await t.drop();
    }
  });

  it("rolls back the whole transaction when a statement sent with its COMMIT fails, answers that error, refuses a statement after it, and serves the next", async () => {
    const t = await createPgDatabase(PG_URL, "parley_commit_with_fail");
    const db = await createDb(t.url, { poolSize: 1 });
    const session = (id: string) => ({ id, ownerId: "local", title: id, at: new Date() });
    try {
      const failed = db.exec.transaction(async (tx) => {
        await tx.rows(insertSession, session("a"));
        return tx.commitWith(() => Promise.all([tx.rows(insertSession, session("b")), tx.rows(insertSession, session("a"))]));
      });
      await expect(failed).rejects.toSatisfy(isUniqueViolation);
      for (const id of ["a", "b"]) expect(await db.exec.rows(sessionOwner, { id })).toEqual([]);
      const late = db.exec.transaction(async (tx) => {
        const last = tx.commitWith(() => tx.rows(insertSession, session("c")));
        await tx.rows(insertSession, session("d"));
        return last;
      });
      await expect(late).rejects.toThrow(/after its transaction's COMMIT/);
      expect(await db.exec.rows(sessionOwner, { id: "d" })).toEqual([]);
      await db.exec.transaction((tx) => tx.rows(insertSession, session("e")));
      expect(await db.exec.rows(sessionOwner, { id: "e" })).toEqual([{ ownerId: "local", deletedAt: null }]);
    } finally {
      await db.close();
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
