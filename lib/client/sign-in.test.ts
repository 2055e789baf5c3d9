import { describe, expect, it } from "vitest";
import type { RequestJson } from "./api";
import { safeNext, spendSignInLink, takeSignInLink } from "./sign-in";

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

describe("a sign-in link in the address", () => {
  const bar = (href: string) => {
    const shown: string[] = [];
    return { shown, bar: { href, replace: (path: string) => void shown.push(path) } };
  };

  it("is taken out of the address bar, which keeps the rest", () => {
    const { shown, bar: b } = bar("http://127.0.0.1:3000/sign-in?signin=sil_abcdefgh_secret-secret-secret-secret&next=%2Fs%2Fx#top");
    expect(takeSignInLink(b)).toBe("sil_abcdefgh_secret-secret-secret-secret");
    expect(shown).toEqual(["/sign-in?next=%2Fs%2Fx#top"]);
  });

  it("leaves an address without one alone", () => {
    const { shown, bar: b } = bar("http://127.0.0.1:3000/sign-in?next=%2F");
    expect(takeSignInLink(b)).toBeNull();
    expect(shown).toEqual([]);
  });

  it("is spent with a POST that does not send the page to sign in again on a 401", async () => {
    const asked: unknown[] = [];
    const request = (async (path: string, init: unknown) => (asked.push({ path, ...(init as object) }), { ok: true, data: { ownerId: "bob", via: "cookie", admin: false } })) as RequestJson;
    expect(await spendSignInLink(request, "sil_x")).toEqual({ ok: true, data: { ownerId: "bob", via: "cookie", admin: false } });
    expect(asked).toEqual([{ path: "/api/auth/session", method: "POST", body: { link: "sil_x" }, signInOn401: false }]);
  });
});
