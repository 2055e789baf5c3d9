import { afterEach, describe, expect, it, vi } from "vitest";
import { createMetrics } from "../lib/server/metrics";
import { histogramQuantile, phaseBuckets } from "./bench-kit-metrics";

/** A node's metrics text after timing `reply.claim` once per duration (seconds). */
async function nodeTiming(durations: number[]): Promise<string> {
  const metrics = createMetrics();
  const clock = vi.spyOn(performance, "now");
  for (const seconds of durations) {
    clock.mockReturnValueOnce(0).mockReturnValueOnce(seconds * 1000);
    metrics.time("reply.claim")();
  }
  return metrics.registry.metrics();
}

afterEach(() => vi.restoreAllMocks());

describe("the timed phases", () => {
  it("are histograms whose buckets from several nodes add up to those of all their timings", async () => {
    const a = await nodeTiming([0.0004, 0.002, 0.002, 0.03]);
    const b = await nodeTiming([0.002, 0.2, 4]);
    const all = await nodeTiming([0.0004, 0.002, 0.002, 0.03, 0.002, 0.2, 4]);
    expect(a).toMatch(/^# TYPE parley_phase_seconds histogram$/m);
    expect(a).toMatch(/^parley_phase_seconds_count\{phase="reply.claim"\} 4$/m);

    const added = phaseBuckets(a, b).get("reply.claim")!;
    expect(added).toEqual(phaseBuckets(all).get("reply.claim"));
    expect(added.get(0.0025)).toBe(4);
    expect(added.get(Infinity)).toBe(7);
    // The median of both nodes' timings is one of the 2 ms ones: in the (1 ms, 2.5 ms] bucket.
    const median = histogramQuantile(0.5, added);
    expect(median).toBeGreaterThan(0.001);
    expect(median).toBeLessThanOrEqual(0.0025);
    expect(histogramQuantile(0.99, added)).toBeGreaterThan(2.5);
  });

  it("estimate a quantile as Prometheus does: linearly within its bucket, the highest bound past the last", () => {
    const buckets = new Map([
      [0.1, 2],
      [1, 6],
      [Infinity, 8],
    ]);
    expect(histogramQuantile(0.25, buckets)).toBeCloseTo(0.1);
    expect(histogramQuantile(0.5, buckets)).toBeCloseTo(0.1 + 0.9 * (2 / 4));
    expect(histogramQuantile(0.99, buckets)).toBe(1);
    expect(histogramQuantile(0.5, new Map())).toBeNaN();
  });
});
