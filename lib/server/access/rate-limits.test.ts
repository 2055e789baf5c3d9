import { describe, expect, it } from "vitest";
import { AppError } from "../../protocol/errors";
import { createRateLimits, type RateLimits } from "./rate-limits";

/** Client "a" tries a right bearer token. */
const rightToken = (limits: RateLimits) =>
  limits.failuresOnly(
    "badTokens",
    "a",
    async () => true,
    (ok) => ok,
  );
/** Client "a" tries a wrong bearer token. */
const wrongToken = (limits: RateLimits) =>
  limits.failuresOnly(
    "badTokens",
    "a",
    async () => false,
    (ok) => ok,
  );

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

  it("failuresOnly counts failures only, and once they reach the limit refuses every attempt until the window ends", async () => {
    const limits = createRateLimits({ badTokens: { points: 3, seconds: 60 } });
    const attempt = (ok: boolean) =>
      limits.failuresOnly(
        "badTokens",
        "a",
        async () => ok,
        (outcome) => outcome,
      );
    // Successes are given back: any number of them.
    for (let i = 0; i < 50; i++) expect(await attempt(true)).toBe(true);
    for (let i = 0; i < 3; i++) expect(await attempt(false)).toBe(false);
    let tried = 0;
    const refused = await limits
      .failuresOnly(
        "badTokens",
        "a",
        async () => ++tried,
        () => true,
      )
      .catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: "rate_limited", details: { retryAfterSeconds: expect.toSatisfy((n: number) => n >= 1 && n <= 60) } });
    expect(tried).toBe(0);
    // Another client has its own allowance.
    expect(
      await limits.failuresOnly(
        "badTokens",
        "b",
        async () => true,
        () => true,
      ),
    ).toBe(true);
  });

  it("failuresOnly does not hold an attempt that could not be made (the database did not answer) against the client", async () => {
    const limits = createRateLimits({ badTokens: { points: 2, seconds: 60 } });
    for (let i = 0; i < 5; i++) {
      await expect(
        limits.failuresOnly(
          "badTokens",
          "a",
          () => Promise.reject(new Error("database_busy")),
          () => true,
        ),
      ).rejects.toThrow("database_busy");
    }
    expect(await wrongToken(limits)).toBe(false);
  });

  it("failuresOnly counts an attempt before it is made: a burst of failures in flight at once cannot outrun the limit", async () => {
    const limits = createRateLimits({ badTokens: { points: 5, seconds: 60 } });
    let made = 0;
    const slowFailure = () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, () =>
        limits.failuresOnly(
          "badTokens",
          "a",
          () => (made++, slowFailure()),
          (ok) => ok,
        ),
      ),
    );
    expect(made).toBe(5);
    expect(outcomes.filter((o) => o.status === "rejected")).toHaveLength(95);
  });

  it("failuresOnly never counts a success, however many are in flight at once: three bursts of 60 right credentials are all let through", async () => {
    const limits = createRateLimits({ badTokens: { points: 10, seconds: 60 } });
    const slowSuccess = () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 5));
    for (let burst = 0; burst < 3; burst++) {
      const outcomes = await Promise.allSettled(Array.from({ length: 60 }, () => limits.failuresOnly("badTokens", "a", slowSuccess, (ok) => ok)));
      expect(outcomes.filter((o) => o.status === "rejected")).toHaveLength(0);
    }
    // The allowance for failures is whole.
    for (let i = 0; i < 10; i++) expect(await wrongToken(limits)).toBe(false);
    await expect(rightToken(limits)).rejects.toMatchObject({ code: "rate_limited" });
  });

  it("failuresOnly lets a trusted attempt through while the key is over the limit, and a refused attempt uses up nothing more", async () => {
    const limits = createRateLimits({ badTokens: { points: 2, seconds: 60 } });
    for (let i = 0; i < 2; i++) await wrongToken(limits);
    for (let i = 0; i < 20; i++) await expect(rightToken(limits)).rejects.toMatchObject({ code: "rate_limited" });
    expect(
      await limits.failuresOnly(
        "badTokens",
        "a",
        async () => "yes",
        () => true,
        { trusted: true },
      ),
    ).toBe("yes");
  });

  it("can be switched off", async () => {
    const limits = createRateLimits("off");
    for (let i = 0; i < 1_000; i++) await limits.take("signIn", "a");
    for (let i = 0; i < 1_000; i++) await wrongToken(limits);
  });
});
