import { spawnSync } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis } from "../../../tests/helpers/cluster";
import { createRateLimits } from "./rate-limits";

// Two nodes' limits counting in one Redis of the test's own.
const hasRedis = spawnSync("redis-server", ["--version"]).status === 0;
if (!hasRedis) console.warn("[rate-limits] SKIPPED: the shared-limit tests need redis-server");

describe.skipIf(!hasRedis)("rate limits shared through Redis", () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  const clients: Redis[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await redis?.stop();
  });

  const ready = (client: Redis) => new Promise<void>((resolve) => (client.status === "ready" ? resolve() : client.once("ready", () => resolve())));

  it("a client has one allowance across nodes, and while Redis is away each node still counts (and serves) alone", async () => {
    const prefix = `shared-${Date.now()}`;
    const mk = () => {
      const client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => 100 });
      client.on("error", () => {});
      clients.push(client);
      const limits = createRateLimits({ replies: { points: 2, seconds: 30 } });
      limits.shareThrough(client, prefix);
      return { limits, client };
    };
    const a = mk();
    const b = mk();
    await Promise.all([ready(a.client), ready(b.client)]);
    await a.limits.take("replies", "ann");
    await b.limits.take("replies", "ann");
    await expect(a.limits.take("replies", "ann")).rejects.toMatchObject({ code: "rate_limited" });
    await expect(b.limits.take("replies", "ann")).rejects.toMatchObject({ code: "rate_limited" });
    // Another client has its own.
    await b.limits.take("replies", "bob");

    await redis.stop();
    await new Promise((r) => setTimeout(r, 100));
    // Counted in memory meanwhile: never refused for Redis's sake, and still limited.
    await a.limits.take("replies", "cy");
    await a.limits.take("replies", "cy");
    await expect(a.limits.take("replies", "cy")).rejects.toMatchObject({ code: "rate_limited" });
    await redis.start();
  });
});
