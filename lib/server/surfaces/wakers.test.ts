import { describe, expect, it } from "vitest";
import { createWakers } from "./wakers";

describe("wakers", () => {
  it("wakes every wait on a key and none on another; a wait that ended leaves nothing behind", () => {
    const wakers = createWakers();
    const woke: string[] = [];
    const offA = wakers.on("r1", () => woke.push("a"));
    const offB = wakers.on("r1", () => woke.push("b"));
    wakers.on("r2", () => woke.push("c"));
    wakers.wake("r1");
    expect(woke).toEqual(["a", "b"]);
    offA();
    offB();
    wakers.wake("r1");
    expect(woke).toEqual(["a", "b"]);
    expect(wakers.size()).toBe(1);
  });

  it("a wait that ends while being woken does not keep the others from waking", () => {
    const wakers = createWakers();
    const woke: string[] = [];
    const offA = wakers.on("q", () => {
      woke.push("a");
      offA();
    });
    wakers.on("q", () => woke.push("b"));
    wakers.wake("q");
    expect(woke).toEqual(["a", "b"]);
  });
});
