import { describe, expect, it } from "vitest";
import { createCookieSigner, SESSION_MAX_AGE_S } from "./session-cookie";

const TOKEN = "server-token-0123456789";
const signer = (key = "key-one", serverToken = TOKEN, now?: () => number) => createCookieSigner({ key, serverToken, now });

describe("session cookies", () => {
  it("verify what they issued, name the owner, and expire", () => {
    let now = 1_000_000;
    const cookies = signer("key-one", TOKEN, () => now);
    const value = cookies.issue("local", "epoch-1");
    expect(cookies.verify(value, "epoch-1")).toEqual({ ownerId: "local", issuedAt: 1_000_000 });
    now += SESSION_MAX_AGE_S * 1000 + 1;
    expect(cookies.verify(value, "epoch-1")).toBeNull();
    expect(cookies.plausible(value)).toBe(false);
  });

  it("carry a person's name with dots in it whole", () => {
    const cookies = signer();
    const value = cookies.issue("j.doe", "epoch-1");
    expect(cookies.verify(value, "epoch-1")).toMatchObject({ ownerId: "j.doe" });
    expect(cookies.verify(value.replace(/^j\.doe\./, "doe."), "epoch-1")).toBeNull();
  });

  it("are named after their key, so two servers on one host (cookies ignore ports) keep one each", () => {
    expect(signer("key-one").name).toMatch(/^parley_session_[0-9a-f]{8}$/);
    expect(signer("key-one").name).toBe(signer("key-one").name);
    expect(signer("key-one").name).not.toBe(signer("key-two").name);
    // Not after the token: a stale cookie of the old token is found, and cleared, under the same name.
    expect(signer("key-one", "another-token-0123456789").name).toBe(signer("key-one").name);
  });

  it("refuse a forged, altered or other server's cookie", () => {
    const cookies = signer();
    const value = cookies.issue("local", "epoch-1");
    const [owner, issued, mac] = value.split(".");
    expect(cookies.verify(`other.${issued}.${mac}`, "epoch-1")).toBeNull();
    expect(cookies.verify(`${owner}.${Number(issued) + 1}.${mac}`, "epoch-1")).toBeNull();
    // Another first character (one in 64 macs begins with "x" already).
    const altered = (mac!.startsWith("x") ? "y" : "x") + mac!.slice(1);
    expect(cookies.verify(`${owner}.${issued}.${altered}`, "epoch-1")).toBeNull();
    expect(signer("key-two").verify(value, "epoch-1")).toBeNull();
    for (const junk of [undefined, "", "a.b", "a.b.c.d", "...", "local.NaN.abc", "local.1e3.abc", "local.-1.abc"]) {
      expect(cookies.verify(junk, "epoch-1")).toBeNull();
      expect(cookies.plausible(junk)).toBe(false);
    }
  });

  it("are refused once the server runs with another token (same database key)", () => {
    const value = signer("key-one", TOKEN).issue("local", "epoch-1");
    expect(signer("key-one", TOKEN).verify(value, "epoch-1")).not.toBeNull();
    expect(signer("key-one", "another-token-0123456789").verify(value, "epoch-1")).toBeNull();
  });

  it("are good only in the epoch they were issued in", () => {
    const cookies = signer();
    const value = cookies.issue("local", "epoch-1");
    expect(cookies.plausible(value)).toBe(true);
    expect(cookies.verify(value, "epoch-2")).toBeNull();
  });
});
