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
    // A browser drops tabs and newlines from a URL, so these would read //evil.example.
    for (const sneaky of ["/\t/evil.example", "/\n/evil.example", "/\r\n/evil.example", "/\u0000/evil.example", "/x\\..\\\\evil.example"]) {
      expect(safeNext(sneaky)).toBe("/");
    }
    expect(safeNext("/s/abc?q=a%09b#frag")).toBe("/s/abc?q=a%09b#frag");
  });
});
