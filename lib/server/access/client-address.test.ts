import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientAddress, isHttps, parseProxyTrust, TRUST_NO_PROXY } from "./client-address";

/** A request as it arrives: the socket's peer, and the headers it carries. */
const request = (peer: string | undefined, headers: Record<string, string> = {}, encrypted = false) => ({ socket: { remoteAddress: peer, encrypted }, headers }) as unknown as IncomingMessage;

describe("a request's client address", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    const spoofed = request("203.0.113.9", { "x-forwarded-for": "198.51.100.1, 10.0.0.1" });
    expect(clientAddress(spoofed, TRUST_NO_PROXY)).toBe("203.0.113.9");
    expect(clientAddress(spoofed, parseProxyTrust(undefined))).toBe("203.0.113.9");
    expect(clientAddress(spoofed, parseProxyTrust("false"))).toBe("203.0.113.9");
    expect(clientAddress(spoofed, parseProxyTrust("0"))).toBe("203.0.113.9");
  });

  it("is the socket's peer when the peer is not a trusted proxy, even if it sends X-Forwarded-For", () => {
    const trust = parseProxyTrust("loopback, 10.0.0.0/8");
    expect(clientAddress(request("203.0.113.9", { "x-forwarded-for": "198.51.100.1" }), trust)).toBe("203.0.113.9");
  });

  it("is the forwarded address when the peer is a trusted proxy", () => {
    const trust = parseProxyTrust("loopback");
    expect(clientAddress(request("127.0.0.1", { "x-forwarded-for": "198.51.100.1" }), trust)).toBe("198.51.100.1");
    // IPv4 on a dual-stack socket: the mapped address is loopback too.
    expect(clientAddress(request("::ffff:127.0.0.1", { "x-forwarded-for": "198.51.100.1" }), trust)).toBe("198.51.100.1");
    // Without the header the proxy itself is the client.
    expect(clientAddress(request("127.0.0.1"), trust)).toBe("127.0.0.1");
  });

  it("walks back only through trusted proxies: what a client put before them is not believed", () => {
    const trust = parseProxyTrust("loopback, 10.0.0.0/8");
    // client-made "1.1.1.1", then the client as the outer proxy saw it, then the outer proxy as nginx saw it.
    const req = request("127.0.0.1", { "x-forwarded-for": "1.1.1.1, 198.51.100.7, 10.1.2.3" });
    expect(clientAddress(req, trust)).toBe("198.51.100.7");
  });

  it("with a hop count, trusts that many proxies in front of the server and no more", () => {
    const req = request("172.18.0.5", { "x-forwarded-for": "1.1.1.1, 198.51.100.7, 10.1.2.3" });
    expect(clientAddress(req, parseProxyTrust("1"))).toBe("10.1.2.3");
    expect(clientAddress(req, parseProxyTrust("2"))).toBe("198.51.100.7");
    expect(clientAddress(req, parseProxyTrust("3"))).toBe("1.1.1.1");
    // More hops than the header has: the furthest address there is.
    expect(clientAddress(req, parseProxyTrust("9"))).toBe("1.1.1.1");
  });

  it("with true, believes the whole header: its first address is the client", () => {
    expect(clientAddress(request("203.0.113.9", { "x-forwarded-for": "1.1.1.1, 198.51.100.7" }), parseProxyTrust("true"))).toBe("1.1.1.1");
  });

  it("is bounded, and says unknown for a socket already gone", () => {
    const long = clientAddress(request("127.0.0.1", { "x-forwarded-for": "x".repeat(10_000) }), parseProxyTrust("true"));
    expect(long.length).toBeLessThanOrEqual(100);
    expect(clientAddress(request(undefined), TRUST_NO_PROXY)).toBe("unknown");
  });
});

describe("whether a request came over HTTPS", () => {
  it("believes X-Forwarded-Proto only from a trusted proxy", () => {
    const headers = { "x-forwarded-proto": "https" };
    expect(isHttps(request("203.0.113.9", headers), TRUST_NO_PROXY)).toBe(false);
    expect(isHttps(request("203.0.113.9", headers), parseProxyTrust("loopback"))).toBe(false);
    expect(isHttps(request("127.0.0.1", headers), parseProxyTrust("loopback"))).toBe(true);
    expect(isHttps(request("127.0.0.1", { "x-forwarded-proto": "https, http" }), parseProxyTrust("1"))).toBe(true);
    expect(isHttps(request("127.0.0.1", { "x-forwarded-proto": "http" }), parseProxyTrust("1"))).toBe(false);
    expect(isHttps(request("127.0.0.1"), parseProxyTrust("1"))).toBe(false);
  });

  it("is true on a TLS socket", () => {
    expect(isHttps(request("203.0.113.9", {}, true), TRUST_NO_PROXY)).toBe(true);
  });
});

describe("PARLEY_TRUST_PROXY", () => {
  it("takes hop counts, true/false, named ranges, addresses and subnets", () => {
    for (const ok of ["1", "0", "true", "FALSE", "loopback", "uniquelocal,linklocal", "10.0.0.0/8, 192.168.1.1", "::1", "fd00::/8", "10.0.0.0/255.0.0.0", " loopback "]) {
      expect(() => parseProxyTrust(ok), ok).not.toThrow();
    }
  });

  it("refuses anything else with a message that says what it takes", () => {
    for (const bad of ["nginx", "10.0.0.0/33", "-1", "1.5", "true,loopback", "2,loopback", "300.1.1.1"]) {
      expect(() => parseProxyTrust(bad), bad).toThrow(/hop count|address|subnet/);
    }
  });
});
