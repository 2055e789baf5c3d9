import { expect, it } from "vitest";
import { MAX_RETRY_DELAY_MS, retryDelayMs } from "./backoff";

it("waits the base after the first failure, doubles at each next, and never more than an hour", () => {
  expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, 5_000))).toEqual([5_000, 10_000, 20_000, 40_000, 80_000]);
  expect(retryDelayMs(0, 5_000)).toBe(5_000);
  expect(retryDelayMs(11, 5_000)).toBe(MAX_RETRY_DELAY_MS);
  expect(retryDelayMs(10_000, 5_000)).toBe(MAX_RETRY_DELAY_MS);
  expect(Number.isFinite(retryDelayMs(10_000, 3_600_000))).toBe(true);
});
