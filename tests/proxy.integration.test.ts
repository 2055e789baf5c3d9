import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { handshakeOutcome } from "./helpers/remote";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServerProcess, TEST_TOKEN, type ServerProcess } from "./helpers/server-process";

/**
 * The production server behind a reverse proxy (PARLEY_TRUST_PROXY; the proxy is this test, on
 * loopback) and without one: per-client limits on sign-ins and socket handshakes.
 */

const TIMEOUT = 60_000;
const LIMITS = "signIn=2/60,handshakes=2/60";
let dir: string;
let behindProxy: ServerProcess;
let direct: ServerProcess;

/** A sign-in attempt with a wrong token through the printed URL: 303 to the sign-in page, or 429. */
async function guess(server: ServerProcess, forwardedFor: string): Promise<number> {
  const res = await fetch(`${server.url}/?token=a-wrong-guess`, { redirect: "manual", headers: { "x-forwarded-for": forwardedFor } });
  return res.status;
}

/** "connected", or why the handshake was refused. */
const handshake = (server: ServerProcess, forwardedFor: string) => handshakeOutcome(server.url, { token: TEST_TOKEN, headers: { "x-forwarded-for": forwardedFor } });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-proxy-"));
  [behindProxy, direct] = await Promise.all([
    startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "proxied.db"), env: { PARLEY_RATE_LIMITS: LIMITS, PARLEY_TRUST_PROXY: "loopback" } }),
    startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "direct.db"), env: { PARLEY_RATE_LIMITS: LIMITS } }),
  ]);
}, TIMEOUT);
afterAll(async () => {
  await behindProxy?.kill("SIGTERM");
  await direct?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

describe("behind a trusted proxy", () => {
  it("limits sign-ins per forwarded client", { timeout: TIMEOUT }, async () => {
    expect([await guess(behindProxy, "198.51.100.1"), await guess(behindProxy, "198.51.100.1"), await guess(behindProxy, "198.51.100.1")]).toEqual([303, 303, 429]);
    expect(await guess(behindProxy, "198.51.100.2")).toBe(303);
  });

  it("limits socket handshakes per forwarded client", { timeout: TIMEOUT }, async () => {
    expect(await handshake(behindProxy, "198.51.100.1")).toBe("connected");
    expect(await handshake(behindProxy, "198.51.100.1")).toBe("connected");
    expect(await handshake(behindProxy, "198.51.100.1")).not.toBe("connected");
    expect(await handshake(behindProxy, "198.51.100.2")).toBe("connected");
  });
});

describe("without PARLEY_TRUST_PROXY", () => {
  it("a client that makes up X-Forwarded-For does not escape its sign-in limit", { timeout: TIMEOUT }, async () => {
    expect([await guess(direct, "203.0.113.1"), await guess(direct, "203.0.113.2"), await guess(direct, "203.0.113.3")]).toEqual([303, 303, 429]);
  });

  it("nor its handshake limit", { timeout: TIMEOUT }, async () => {
    expect(await handshake(direct, "203.0.113.1")).toBe("connected");
    expect(await handshake(direct, "203.0.113.2")).toBe("connected");
    expect(await handshake(direct, "203.0.113.3")).not.toBe("connected");
  });
});
