import { describe, expect, it } from "vitest";
import { checkDatabase, databaseEngine, isReady } from "./health";

describe("the database check", () => {
  it("is ok with its latency when SELECT 1 answers", async () => {
    let asked = "";
    const db = { $queryRawUnsafe: async (q: string) => ((asked = q), [{ 1: 1 }]) };
    const result = await checkDatabase(db, { engine: "postgresql" });
    expect(asked).toBe("SELECT 1");
    expect(result).toMatchObject({ ok: true, engine: "postgresql" });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("is down, without throwing, when the query fails or stalls past its timeout", async () => {
    const failing = { $queryRawUnsafe: () => Promise.reject(new Error("connection refused")) };
    expect(await checkDatabase(failing, { engine: "sqlite" })).toEqual({ ok: false, engine: "sqlite", latencyMs: null });
    const stalled = { $queryRawUnsafe: () => new Promise<never>(() => {}) };
    const started = Date.now();
    expect(await checkDatabase(stalled, { engine: "sqlite", timeoutMs: 50 })).toEqual({ ok: false, engine: "sqlite", latencyMs: null });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("names the engine from DATABASE_URL", () => {
    expect(databaseEngine("file:./data/parley.db")).toBe("sqlite");
    expect(databaseEngine("postgresql://parley@db:5432/parley")).toBe("postgresql");
    expect(databaseEngine("postgres://parley@db/parley")).toBe("postgresql");
  });
});

describe("readiness for a load balancer", () => {
  it("needs the database, and Redis unless there is none", () => {
    expect(isReady({ ok: true }, "single")).toBe(true);
    expect(isReady({ ok: true }, "connected")).toBe(true);
    expect(isReady({ ok: true }, "lost")).toBe(false);
    expect(isReady({ ok: false }, "connected")).toBe(false);
  });
});
