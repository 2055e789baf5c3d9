import { describe, expect, it } from "vitest";
import { AppError } from "../../protocol/errors";
import { createRateLimits } from "./rate-limits";

describe("rate limits", () => {
  it("count per client and action, and say how long to wait", async () => {
    const limits = createRateLimits({ replies: { points: 2, seconds: 30 } });
    await limits.take("replies", "a");
    await limits.take("replies", "a");
    await limits.take("replies", "b");
    await limits.take("runs", "a");
    const refused = await limits.take("replies", "a").catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "rate_limited", status: 429, details: { retryAfterSeconds: expect.any(Number) } });
    expect((refused as AppError).details).toMatchObject({ retryAfterSeconds: expect.toSatisfy((n: number) => n >= 1 && n <= 30) });
  });

  it("can be switched off", async () => {
    const limits = createRateLimits("off");
    for (let i = 0; i < 1_000; i++) await limits.take("signIn", "a");
  });
});
