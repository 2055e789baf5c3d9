import { describe, expect, it } from "vitest";
import { createSessionCookies, SESSION_MAX_AGE_S } from "./session-cookie";

describe("session cookies", () => {
  it("verify what they issued, name the owner, and expire", () => {
    let now = 1_000_000;
    const cookies = createSessionCookies("key-one", () => now);
    const value = cookies.issue("local");
    expect(cookies.verify(value)).toEqual({ ownerId: "local", issuedAt: 1_000_000 });
    now += SESSION_MAX_AGE_S * 1000 + 1;
    expect(cookies.verify(value)).toBeNull();
  });

  it("are named after their key, so two servers on one host (cookies ignore ports) keep one each", () => {
    expect(createSessionCookies("key-one").name).toMatch(/^parley_session_[0-9a-f]{8}$/);
    expect(createSessionCookies("key-one").name).toBe(createSessionCookies("key-one").name);
    expect(createSessionCookies("key-one").name).not.toBe(createSessionCookies("key-two").name);
  });

  it("refuse a forged, altered or other server's cookie", () => {
    const cookies = createSessionCookies("key-one");
    const value = cookies.issue("local");
    const [owner, issued, mac] = value.split(".");
    expect(cookies.verify(`other.${issued}.${mac}`)).toBeNull();
    expect(cookies.verify(`${owner}.${Number(issued) + 1}.${mac}`)).toBeNull();
    // Another first character (one in 64 macs begins with "x" already).
    const altered = (mac!.startsWith("x") ? "y" : "x") + mac!.slice(1);
    expect(cookies.verify(`${owner}.${issued}.${altered}`)).toBeNull();
    expect(createSessionCookies("key-two").verify(value)).toBeNull();
    for (const junk of [undefined, "", "a.b", "a.b.c.d", "...", "local.NaN.abc"]) expect(cookies.verify(junk)).toBeNull();
  });
});
