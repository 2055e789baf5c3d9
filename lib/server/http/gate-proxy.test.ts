import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeParley, type FakeParley } from "../../../tests/helpers/fakes";
import { parseProxyTrust } from "../access/client-address";
import { createOriginPolicy } from "../access/origin-policy";
import { createGate } from "./gate";

// The gate behind a reverse proxy (nginx on loopback here: the test's own requests come from 127.0.0.1).
const TOKEN = "gate-proxy-token-0123456789";
const LIMITS = { sessions: { points: 2, seconds: 60 }, signIn: { points: 2, seconds: 60 } };

interface Gated {
  fake: FakeParley;
  server: Server;
  port: number;
  /** What reached "Next" behind the gate. */
  reached: Record<string, string | string[] | undefined> | null;
}

async function startGated(trustProxy: string | undefined): Promise<Gated> {
  const fake = await startFakeParley({ access: { token: TOKEN, rateLimits: LIMITS, trustProxy: parseProxyTrust(trustProxy) } });
  const gated = { fake, port: 0, reached: null } as Gated;
  const gate = createGate({ access: fake.parley.access, origins: createOriginPolicy({ host: "127.0.0.1", port: () => gated.port }), dev: false });
  gated.server = createServer((req, res) => {
    void gate(req, res).then((outcome) => {
      if (outcome.answered) return;
      gated.reached = { ...req.headers };
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => gated.server.listen(0, "127.0.0.1", resolve));
  gated.port = (gated.server.address() as AddressInfo).port;
  return gated;
}

function send(to: Gated, path: string, headers: Record<string, string> = {}, method = "GET", body?: string) {
  to.reached = null;
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: to.port, method, path, headers: { host: `127.0.0.1:${to.port}`, ...headers } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A wrong token through the printed URL: a sign-in attempt (303 to the sign-in page, or 429). */
const guess = (to: Gated, forwardedFor: string) => send(to, "/?token=a-wrong-guess", { "x-forwarded-for": forwardedFor });

let behindProxy: Gated;
let noProxy: Gated;

beforeAll(async () => {
  behindProxy = await startGated("loopback");
  noProxy = await startGated(undefined);
});
afterAll(async () => {
  for (const g of [behindProxy, noProxy]) {
    g.server.close();
    await g.fake.close();
  }
});

describe("the gate behind a trusted proxy", () => {
  it("counts sign-ins per forwarded client: one person guessing tokens does not lock out another", async () => {
    expect((await guess(behindProxy, "198.51.100.1")).status).toBe(303);
    expect((await guess(behindProxy, "198.51.100.1")).status).toBe(303);
    expect((await guess(behindProxy, "198.51.100.1")).status).toBe(429);
    // Another client through the same proxy still signs in.
    expect((await guess(behindProxy, "198.51.100.2")).status).toBe(303);
    const signIn = await send(behindProxy, `/?token=${TOKEN}`, { "x-forwarded-for": "198.51.100.2" });
    expect(signIn.status).toBe(303);
    expect(String(signIn.headers["set-cookie"])).toMatch(/^parley_session_/);
  });

  it("marks the cookie Secure when the proxy says the client came over HTTPS", async () => {
    const signIn = await send(behindProxy, `/?token=${TOKEN}`, { "x-forwarded-for": "198.51.100.3", "x-forwarded-proto": "https" });
    expect(String(signIn.headers["set-cookie"])).toMatch(/; Secure$/);
  });

  it("hands Next the client's address and scheme as it trusts them", async () => {
    await send(behindProxy, "/api/health", { "x-forwarded-for": "1.1.1.1, 198.51.100.4", "x-forwarded-proto": "https" });
    expect(behindProxy.reached?.["x-forwarded-for"]).toBe("198.51.100.4");
    expect(behindProxy.reached?.["x-forwarded-proto"]).toBe("https");
  });
});

describe("the gate without PARLEY_TRUST_PROXY", () => {
  it("ignores X-Forwarded-For: a client that changes it at each attempt stays within its one limit", async () => {
    expect((await guess(noProxy, "203.0.113.1")).status).toBe(303);
    expect((await guess(noProxy, "203.0.113.2")).status).toBe(303);
    expect((await guess(noProxy, "203.0.113.3")).status).toBe(429);
    expect((await guess(noProxy, "203.0.113.4")).status).toBe(429);
  });

  it("ignores X-Forwarded-Proto: the cookie of a plain HTTP request is not marked Secure, and Next hears the truth", async () => {
    const fresh = await startGated(undefined);
    try {
      const signIn = await send(fresh, `/?token=${TOKEN}`, { "x-forwarded-proto": "https" });
      expect(signIn.status).toBe(303);
      expect(String(signIn.headers["set-cookie"])).not.toMatch(/Secure/);
      await send(fresh, "/api/health", { "x-forwarded-for": "1.1.1.1", "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" });
      expect(fresh.reached?.["x-forwarded-for"]).toBe("127.0.0.1");
      expect(fresh.reached?.["x-forwarded-proto"]).toBe("http");
      expect(fresh.reached?.["x-forwarded-host"]).toBeUndefined();
    } finally {
      fresh.server.close();
      await fresh.fake.close();
    }
  });
});
