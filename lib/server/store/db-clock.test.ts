import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "./db/client";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../tests/helpers/fixture-db";
import { dbNow, dbNowPlusMs } from "./db-clock";
import { statement } from "./typed-sql";

// The database's clock as leases use it, on whichever engine the suite runs (SQLite, or
// PostgreSQL under `npm run test:pg`, whose sessions here run in a time zone far from UTC).
let t: StoreTestDb;
let db: Db;
let fixture: FixtureDb;

beforeEach(async () => {
  t = await openStoreTestDb("parley_dbclock", async (testDb) => {
    if (testDb.engine !== "postgresql") return;
    const client = new pg.Client({ connectionString: testDb.url });
    await client.connect();
    await client.query(`ALTER DATABASE "${new URL(testDb.url).pathname.slice(1)}" SET timezone TO 'Pacific/Kiritimati'`);
    await client.end();
  });
  ({ db, fixture } = t);
});

afterEach(() => t.close());

const insertLease = statement((q, p: { name: string; ms: number }, engine) => q.insertInto("NodeLease").values({ name: p.name, holder: "node", until: dbNowPlusMs(engine, p.ms), epoch: 1 }));
/** The leases that end after the database's now plus `ms`, earliest first. */
const endingAfter = statement((q, p: { ms: number }, engine) => q.selectFrom("NodeLease").select("name").where("until", ">", dbNowPlusMs(engine, p.ms)).orderBy("until"));
const lapsed = statement((q, _p, engine) => q.selectFrom("NodeLease").select("name").where("until", "<", dbNow(engine)).orderBy("until"));

describe("the database's clock in statements written once for both engines", () => {
  it("a time written from the database's now reads back through Prisma as the current UTC instant", async () => {
    const { exec } = db;
    const before = Date.now();
    expect(await exec.changes(insertLease, { name: "job", ms: 60_000 })).toBe(1);
    const { until } = (await fixture.nodeLease.findUnique({ where: { name: "job" } }))!;
    // Within a few seconds of this process's clock (the same machine), not hours off.
    expect(until.getTime()).toBeGreaterThan(before + 60_000 - 5_000);
    expect(until.getTime()).toBeLessThan(Date.now() + 60_000 + 5_000);
  });

  it("orders times it writes among times Prisma wrote, and compares both with its now", async () => {
    const { exec } = db;
    const at = Date.now();
    for (const [name, ms] of [
      ["prisma-90s", 90_000],
      ["prisma+30s", 30_000],
      ["prisma+90s", 90_000],
    ] as const)
      await fixture.nodeLease.create({ data: { name, holder: "node", until: new Date(at + (name.includes("-") ? -ms : ms)), epoch: 1 } });
    await exec.changes(insertLease, { name: "clock+60s", ms: 60_000 });
    await exec.changes(insertLease, { name: "clock-1ms", ms: -1 });
    const names = (rows: Array<{ name: string }>) => rows.map((r) => r.name);
    expect(names(await exec.rows(endingAfter, { ms: 0 }))).toEqual(["prisma+30s", "clock+60s", "prisma+90s"]);
    expect(names(await exec.rows(endingAfter, { ms: 45_000 }))).toEqual(["clock+60s", "prisma+90s"]);
    expect(names(await exec.rows(endingAfter, { ms: -120_000 }))).toEqual(["prisma-90s", "clock-1ms", "prisma+30s", "clock+60s", "prisma+90s"]);
    // A time set in the past (a lease let go) is before the database's now.
    expect(names(await exec.rows(lapsed, {}))).toEqual(["prisma-90s", "clock-1ms"]);
  });
});
