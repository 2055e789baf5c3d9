import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { guardedLookup, isPublicAddress } from "./address-guard";
import { DEFAULT_WEBHOOK_HOSTS } from "./callback-hosts";
import { postWebhook } from "./webhook-post";

describe("a webhook's addresses", () => {
  it("tells the public internet from loopback, private, link-local and reserved addresses, IPv4-mapped ones too", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:93.184.216.34"]) expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      "127.0.0.1",
      "127.1.2.3",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:169.254.169.254",
      "239.1.1.1",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  /** The lookup's answer for `hostname`, given what DNS says. */
  const lookUp = (allowed: readonly string[], says: LookupAddress[], all = true) =>
    new Promise<{ err: Error | null; addresses: unknown }>((resolve) =>
      guardedLookup(allowed, (_name, cb) => cb(null, says))("hooks.example.com", { all }, (err, addresses) => resolve({ err, addresses })),
    );

  it("lets a listed name reach a public address, and an inside address only when that address is listed too", async () => {
    const pub = { address: "93.184.216.34", family: 4 };
    const inside = { address: "169.254.169.254", family: 4 };
    expect(await lookUp(["hooks.example.com"], [pub])).toEqual({ err: null, addresses: [pub] });
    const refused = await lookUp(["hooks.example.com"], [inside]);
    expect(refused.err?.message).toBe("hooks.example.com resolves to 169.254.169.254, not a public address, and PARLEY_WEBHOOK_HOSTS does not list it");
    // Of a mixed answer only the permitted addresses are connected to.
    expect((await lookUp(["hooks.example.com"], [inside, pub])).addresses).toEqual([pub]);
    expect((await lookUp(["hooks.example.com", "169.254.169.254"], [inside])).addresses).toEqual([inside]);
    expect((await lookUp(["hooks.example.com"], [pub], false)).addresses).toBe(pub.address);
  });

  it("is used for real connections: localhost reaches a loopback receiver by default, and not when only the name is listed", async () => {
    const server = createServer((req, res) => req.resume().on("end", () => res.writeHead(204).end()));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://localhost:${(server.address() as AddressInfo).port}/hook`;
      expect(await postWebhook(url, {}, "{}", { lookup: guardedLookup(DEFAULT_WEBHOOK_HOSTS) })).toEqual({ ok: true, status: 204 });
      const refused = await postWebhook(url, {}, "{}", { lookup: guardedLookup(["localhost"]) });
      expect(refused.ok).toBe(false);
      expect(!refused.ok && refused.error).toMatch(/localhost resolves to .*not a public address/);
    } finally {
      server.close();
    }
  });
});
