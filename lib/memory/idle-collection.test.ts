import { describe, expect, it, vi } from "vitest";
import { createIdleCollector, fullCollection } from "./idle-collection";

const MB = 1024 * 1024;
const policy = { everyMs: 500, quietUtilisation: 0.05, minGrowthBytes: 4 * MB, maxKeptBytes: 64 * MB };

/** A collector over a heap and a loop the test sets; a collection brings the heap back to `kept`. */
function harness(kept = 40 * MB) {
  const state = { heap: kept, busy: 0 };
  const collect = vi.fn(() => void (state.heap = kept));
  const collector = createIdleCollector({ collect, heapUsed: () => state.heap, utilisation: () => state.busy }, policy);
  return { state, collect, collector };
}

describe("idle collection", () => {
  it("collects once the loop is quiet after the heap grew by the threshold, then not again until it grows again", () => {
    const { state, collect, collector } = harness();
    state.heap += 6 * MB;
    expect(collector.check()).toBe(true);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(collector.check()).toBe(false);
    state.heap += 3 * MB;
    expect(collector.check()).toBe(false);
    state.heap += 1 * MB;
    expect(collector.check()).toBe(true);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it("never collects while the loop is busy, however much the heap grew", () => {
    const { state, collect, collector } = harness();
    state.heap += 100 * MB;
    state.busy = 0.05;
    expect(collector.check()).toBe(false);
    state.busy = 0.9;
    expect(collector.check()).toBe(false);
    expect(collect).not.toHaveBeenCalled();
    state.busy = 0.01;
    expect(collector.check()).toBe(true);
  });

  it("counts growth from the least the heap held, so V8's own collection meanwhile resets it", () => {
    const { state, collect, collector } = harness();
    state.busy = 0.5;
    state.heap += 10 * MB;
    collector.check();
    state.heap -= 12 * MB; // V8 collected on its own while the loop was busy
    collector.check();
    state.busy = 0;
    state.heap += 3 * MB;
    expect(collector.check()).toBe(false);
    expect(collect).not.toHaveBeenCalled();
  });

  it("leaves a heap that keeps more than the cap to V8, and collects again once it keeps less", () => {
    const { state, collect, collector } = harness(100 * MB);
    state.heap += 12 * MB;
    expect(collector.check()).toBe(false);
    state.heap = 104 * MB; // V8's own collection
    state.heap += 20 * MB;
    expect(collector.check()).toBe(false);
    expect(collect).not.toHaveBeenCalled();
    state.heap = 60 * MB; // the tabs went away: V8 brought it under the cap
    expect(collector.check()).toBe(false);
    state.heap += 5 * MB;
    expect(collector.check()).toBe(true);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it("takes one long pause at most as the heap grows past the cap, then none", () => {
    const { state, collect, collector } = harness(40 * MB);
    const kept = { heap: 40 * MB };
    collect.mockImplementation(() => void (state.heap = kept.heap));
    kept.heap = 100 * MB; // 5,000 tabs connected: what the heap keeps grew
    state.heap = 110 * MB;
    expect(collector.check()).toBe(true);
    state.heap += 12 * MB;
    expect(collector.check()).toBe(false);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it("has a full collection without --expose-gc that frees what nothing holds", async () => {
    const collect = fullCollection();
    const gone = new WeakRef(Array.from({ length: 200 }, () => Array.from({ length: 10_000 }, (_, i) => i)));
    // A WeakRef's target is held until the job that made it ends.
    await new Promise((r) => setTimeout(r, 0));
    collect();
    expect(gone.deref()).toBeUndefined();
  });
});
