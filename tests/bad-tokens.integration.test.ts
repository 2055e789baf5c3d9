import { request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { handshakeOutcome } from "./helpers/remote";
import { createApiToken } from "./helpers/api-token";
import { freePort, startServerProcess, TEST_TOKEN, type ServerProcess } from "./helpers/server-process";

/** Guessing bearer tokens is limited per client address, over REST and socket handshakes (production build). */

const TIMEOUT = 60_000;
const LIMIT = 5;
let dir: string;
let server: ServerProcess;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-bad-tokens-"));
  server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "p.db"), env: { PARLEY_RATE_LIMITS: `badTokens=${LIMIT}/60` } });
}, TIMEOUT);
afterAll(async () => {
  await server?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

/** GET /api/sessions with a bearer token (or a cookie) from a chosen loopback address. */
function get({ token, cookie, from = "127.0.0.1" }: { token?: string; cookie?: string; from?: string }): Promise<{ status: number; retryAfter: string | undefined }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, path: "/api/sessions", localAddress: from, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(cookie ? { cookie } : {}) } },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, retryAfter: res.headers["retry-after"] }));
      },
    );
    req.once("error", reject);
    req.end();
  });
}

it(
  "refuses a client's guesses with 429 once its wrong ones reach the limit; right tokens are never counted, and one already used goes on; other clients and cookies too",
  { timeout: TIMEOUT },
  async () => {
    const signIn = await fetch(`${server.url}/?token=${TEST_TOKEN}`, { redirect: "manual" });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;

    // Right tokens are not counted, however many arrive at once: three bursts of 60.
    for (let burst = 0; burst < 3; burst++) {
      const statuses = (await Promise.all(Array.from({ length: 60 }, () => get({ token: TEST_TOKEN })))).map((r) => r.status);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
    }
    for (let i = 0; i < LIMIT; i++) expect((await get({ token: `wrong-token-${i}-0123456789` })).status).toBe(401);

    const limited = await get({ token: "wrong-token-again-0123456789" });
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(limited.retryAfter)).toBeLessThanOrEqual(60);
    // The right token, used from here before, still works: the guesses are not turned against it.
    expect((await get({ token: TEST_TOKEN })).status).toBe(200);
    expect(await handshakeOutcome(server.url, { token: TEST_TOKEN })).toBe("connected");

    // Another address, and a signed-in browser on this one, are not affected.
    expect((await get({ token: "wrong-token-again-0123456789", from: "127.0.0.2" })).status).toBe(401);
    expect((await get({ cookie })).status).toBe(200);
    expect(await handshakeOutcome(server.url, { headers: { cookie } })).toBe("connected");
  },
);

it("20 wrong tokens sent from one address beside a right one: the right one is answered 200 every time", { timeout: TIMEOUT }, async () => {
  const from = "127.0.0.4";
  const token = await createApiToken(path.join(dir, "p.db"), "beside");
  const outcomes = await Promise.all([...Array.from({ length: 20 }, (_, i) => get({ token: `wrong-token-beside-${i}-0123456789`, from })), ...Array.from({ length: 5 }, () => get({ token, from }))]);
  expect(outcomes.slice(20).map((o) => o.status)).toEqual([200, 200, 200, 200, 200]);
  expect(outcomes.slice(0, 20).filter((o) => o.status === 401)).toHaveLength(LIMIT);
  expect(outcomes.slice(0, 20).filter((o) => o.status === 429)).toHaveLength(20 - LIMIT);
  expect((await get({ token, from })).status).toBe(200);
});

it("limits guesses sent all at once: no more than the limit are checked", { timeout: TIMEOUT }, async () => {
  const from = "127.0.0.3";
  const started = performance.now();
  const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => get({ token: `pat_0123456789abcdef_guess${i}`, from })));
  const ms = performance.now() - started;
  const statuses = outcomes.map((o) => o.status);
  expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
  expect(statuses.filter((s) => s === 429)).toHaveLength(200 - LIMIT);
  console.log(`200 guesses at once from one address: ${LIMIT} checked, ${200 - LIMIT} refused with 429, in ${ms.toFixed(0)} ms`);
});
