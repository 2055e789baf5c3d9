import { describe, expect, it } from "vitest";
import { safeNext } from "./sign-in";

describe("safeNext", () => {
  it("keeps a path on this site and refuses anything that leaves it", () => {
    expect(safeNext("/s/abc?x=1")).toBe("/s/abc?x=1");
    expect(safeNext(null)).toBe("/");
    expect(safeNext("https://evil.example/")).toBe("/");
    expect(safeNext("//evil.example/")).toBe("/");
    expect(safeNext("/\\evil.example")).toBe("/");
    expect(safeNext("javascript:alert(1)")).toBe("/");
  });
});
