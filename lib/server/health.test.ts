import { describe, expect, it, vi } from "vitest";
import { settledAtOnce } from "../../tests/helpers/timing";
import { checkDatabase, isReady } from "./health";
import type { SqlExecutor } from "./store/sql-executor";

/** An executor of `engine` whose reads answer with `read`. */
const answering = (engine: SqlExecutor["engine"], read: (sql: string) => Promise<unknown[]>) => ({ engine, rows: (s, _p) => read(s.compiled(engine).sql) }) as Pick<SqlExecutor, "engine" | "rows">;

describe("the database check", () => {
  it("is ok with its latency when SELECT 1 answers", async () => {
    let asked = "";
    const result = await checkDatabase(answering("postgresql", async (q) => ((asked = q), [{ ok: 1 }])));
    expect(asked).toBe('select 1 as "ok"');
    expect(result).toMatchObject({ ok: true, engine: "postgresql" });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("is down, without throwing, when the query fails or stalls past its timeout", async () => {
    const failing = answering("sqlite", () => Promise.reject(new Error("connection refused")));
    expect(await checkDatabase(failing)).toEqual({ ok: false, engine: "sqlite", latencyMs: null });
    const stalled = answering("sqlite", () => new Promise<never>(() => {}));
    // Given up at its timeout, on this process's timers: not before, not after.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const checked = checkDatabase(stalled, { timeoutMs: 50 });
      await vi.advanceTimersByTimeAsync(49);
      expect(await settledAtOnce(checked)).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await settledAtOnce(checked)).toBe(true);
      expect(await checked).toEqual({ ok: false, engine: "sqlite", latencyMs: null });
    } finally {
      vi.useRealTimers();
    }
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
