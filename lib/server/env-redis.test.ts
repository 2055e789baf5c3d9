import { describe, expect, it } from "vitest";
import { loadEnv } from "./env";

describe("REDIS_URL", () => {
  it("is optional: unset or blank means one node alone", () => {
    expect(loadEnv({}).REDIS_URL).toBeUndefined();
    expect(loadEnv({ REDIS_URL: " " }).REDIS_URL).toBeUndefined();
  });

  it("takes redis:// and rediss:// URLs and refuses anything else", () => {
    expect(loadEnv({ REDIS_URL: "redis://127.0.0.1:6379" }).REDIS_URL).toBe("redis://127.0.0.1:6379");
    expect(loadEnv({ REDIS_URL: "rediss://user:pw@cache.example.com:6380/0" }).REDIS_URL).toBe("rediss://user:pw@cache.example.com:6380/0");
    expect(() => loadEnv({ REDIS_URL: "http://127.0.0.1:6379" })).toThrow(/REDIS_URL must be a redis:\/\/ or rediss:\/\//);
    expect(() => loadEnv({ REDIS_URL: "127.0.0.1:6379" })).toThrow(/REDIS_URL/);
  });
});
