import { describe, expect, it } from "vitest";
import { quietLoop } from "./loop-utilisation";

describe("quietLoop", () => {
  it("reads the loop's use at most once a window and calls it quiet under the threshold", () => {
    let t = 0;
    const readings = [0.2, 0.7, 0.4];
    let reads = 0;
    const quiet = quietLoop(
      { threshold: 0.5, windowMs: 100 },
      () => readings[reads++]!,
      () => t,
    );
    // Quiet until the first window has passed (nothing measured yet).
    expect(quiet()).toBe(true);
    t = 99;
    expect(quiet()).toBe(true);
    expect(reads).toBe(0);
    t = 100;
    expect(quiet()).toBe(true);
    t = 150;
    expect(quiet()).toBe(true);
    expect(reads).toBe(1);
    t = 200;
    expect(quiet()).toBe(false);
    t = 250;
    expect(quiet()).toBe(false);
    t = 300;
    expect(quiet()).toBe(true);
    expect(reads).toBe(3);
  });
});
