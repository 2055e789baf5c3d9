import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createCoalescer } from "./coalesce";

describe("coalescer", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("items that arrive close together are applied once, together, in order", () => {
    const batches: number[][] = [];
    const c = createCoalescer<number>((items) => batches.push(items), { quietMs: 40, maxMs: 200 });
    c.hold(1);
    vi.advanceTimersByTime(10);
    c.hold(2);
    expect(c.waiting).toBe(true);
    vi.advanceTimersByTime(39);
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(batches).toEqual([[1, 2]]);
    expect(c.waiting).toBe(false);
  });

  it("a steady trickle is still applied by the deadline", () => {
    const batches: number[][] = [];
    const c = createCoalescer<number>((items) => batches.push(items), { quietMs: 40, maxMs: 100 });
    for (let i = 0; i < 5; i++) {
      c.hold(i);
      vi.advanceTimersByTime(30);
    }
    expect(batches).toEqual([[0, 1, 2, 3]]);
    vi.advanceTimersByTime(40);
    expect(batches).toEqual([[0, 1, 2, 3], [4]]);
  });

  it("flush applies at once; cancel drops what waits", () => {
    const batches: string[][] = [];
    const c = createCoalescer<string>((items) => batches.push(items));
    c.hold("a");
    c.flush();
    c.hold("b");
    c.cancel();
    vi.advanceTimersByTime(1_000);
    expect(batches).toEqual([["a"]]);
    c.flush();
    expect(batches).toEqual([["a"]]);
  });
});
