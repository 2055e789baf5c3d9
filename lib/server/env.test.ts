import { describe, expect, it } from "vitest";
import { loadEnv } from "./env";

describe("the environment", () => {
  it("runs the database with synchronous = FULL unless PARLEY_DB_SYNC asks for NORMAL", () => {
    expect(loadEnv({}).PARLEY_DB_SYNC).toBe("FULL");
    expect(loadEnv({ PARLEY_DB_SYNC: "NORMAL" }).PARLEY_DB_SYNC).toBe("NORMAL");
    expect(loadEnv({ PARLEY_DB_SYNC: "normal" }).PARLEY_DB_SYNC).toBe("NORMAL");
    expect(() => loadEnv({ PARLEY_DB_SYNC: "OFF" })).toThrow(/PARLEY_DB_SYNC/);
  });

  it("waits 10 s for a database lock held elsewhere unless PARLEY_DB_BUSY_TIMEOUT_MS says otherwise", () => {
    expect(loadEnv({}).PARLEY_DB_BUSY_TIMEOUT_MS).toBe(10_000);
    expect(loadEnv({ PARLEY_DB_BUSY_TIMEOUT_MS: "1500" }).PARLEY_DB_BUSY_TIMEOUT_MS).toBe(1_500);
    expect(() => loadEnv({ PARLEY_DB_BUSY_TIMEOUT_MS: "soon" })).toThrow(/PARLEY_DB_BUSY_TIMEOUT_MS/);
  });
});
