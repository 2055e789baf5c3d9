import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeParley, type FakeParley } from "../../../tests/helpers/fakes";
import { createOriginPolicy } from "../access/origin-policy";
import { createGate } from "./gate";
import type { Principal } from "../access/authenticator";

const TOKEN = "gate-test-token-0123456789";
let fake: FakeParley;
let server: Server;
let port = 0;

/** What reached "Next" behind the gate: the request's headers, and the principal the route or page serves. */
let reached: { headers: Record<string, string | string[] | undefined>; principal: Principal | null } | null = null;

beforeAll(async () => {
  fake = await startFakeParley({ access: { token: TOKEN, rateLimits: { sessions: { points: 2, seconds: 60 }, signIn: { points: 3, seconds: 60 } } } });
  const gate = createGate({ access: fake.parley.access, origins: createOriginPolicy({ host: "127.0.0.1", port: () => port }), dev: false });
  server = createServer((req, res) => {
    void gate(req, res).then((gated) => {
      if (gated.answered) return;
      reached = { headers: { ...req.headers }, principal: gated.principal };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ next: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.close();
  await fake.close();
});

interface Sent {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A raw request (fetch may not set Host or send a malformed path). */
function send({ method = "GET", path, headers = {}, body }: Sent): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: any }> {
  reached = null;
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, json: text ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const bearer = { authorization: `Bearer ${TOKEN}` };
const json = { "content-type": "application/json" };

describe("the request gate", () => {
  it("refuses every API call without a credential, and lets health and sign-in through", async () => {
    for (const path of ["/api/sessions", "/api/functions", "/api/questions/q1", "/api/runs/r1"]) {
      const res = await send({ path });
      expect(res.status, path).toBe(401);
      expect(res.json.error.code).toBe("unauthorized");
      expect(res.headers["www-authenticate"]).toMatch(/Bearer/);
    }
    expect((await send({ path: "/api/sessions", headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    expect((await send({ path: "/api/health" })).status).toBe(200);
    expect((await send({ path: "/api/auth/session" })).status).toBe(200);
  });

  it("tells the route handler who called, and never from headers a client sends", async () => {
    await send({ path: "/api/sessions", headers: { ...bearer } });
    expect(reached?.principal).toMatchObject({ ownerId: "local", via: "server_token", admin: true });
    // The headers that once carried the caller name nobody now.
    await send({ path: "/api/health", headers: { "x-parley-owner": "local", "x-parley-via": "cookie", "x-parley-admin": "1" } });
    expect(reached?.principal).toBeNull();
    // A person who is no administrator is not served as one, whatever the request says.
    await fake.parley.people.add("ann", { addedBy: "local" });
    const { token } = await fake.parley.access.apiTokens.create({ ownerId: "ann", name: "script" });
    await send({ path: "/api/sessions", headers: { authorization: `Bearer ${token}`, "x-parley-admin": "1" } });
    expect(reached?.principal).toMatchObject({ ownerId: "ann", admin: false });
  });

  it("refuses writes from another site, and bodies that are not JSON", async () => {
    const write = (headers: Record<string, string>, body = "{}") => send({ method: "POST", path: "/api/questions/q1/reply", headers: { ...bearer, ...headers }, body });
    expect((await write({ origin: "https://evil.example", "content-type": "text/plain" })).json.error.code).toBe("forbidden_origin");
    expect((await write({ origin: "https://evil.example", ...json })).status).toBe(403);
    expect((await write({ origin: "http://localhost:1", ...json })).status).toBe(403);
    expect((await write({ origin: "null", ...json })).status).toBe(403);
    expect((await write({ "sec-fetch-site": "cross-site", ...json })).status).toBe(403);
    expect((await write({ origin: `http://127.0.0.1:${port}`, "content-type": "text/plain" })).status).toBe(415);
    expect((await write({ "content-type": "application/x-www-form-urlencoded" }, "function=test.ask")).json.error.code).toBe("unsupported_media_type");
    expect((await write({ origin: `http://localhost:${port}`, "content-type": "application/json; charset=utf-8" })).status).toBe(200);
    expect(reached).not.toBeNull();
    // A write without a body (stop, resume) needs no content type.
    expect((await send({ method: "POST", path: "/api/runs/r1/stop", headers: bearer })).status).toBe(200);
  });

  it("refuses a Host it does not answer to (DNS rebinding), before anything else", async () => {
    const res = await send({ path: "/api/health", headers: { host: `evil.example:${port}` } });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe("forbidden_host");
    expect((await send({ path: "/", headers: { host: "evil.example" } })).status).toBe(403);
  });

  it("answers unknown routes 404, wrong methods 405 with Allow, and malformed paths 400, all as JSON", async () => {
    expect((await send({ path: "/api/nope", headers: bearer })).json.error.code).toBe("not_found:route");
    const wrong = await send({ method: "DELETE", path: "/api/questions/q1/reply", headers: bearer });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe("POST, OPTIONS");
    expect(wrong.json.error.code).toBe("method_not_allowed");
    expect((await send({ method: "PUT", path: "/api/sessions" })).status).toBe(405);
    for (const path of ["/api/questions/%ff", "/api/questions/%E0%A4%A", "/api/runs/%", "/s/%ff"]) {
      const res = await send({ path, headers: bearer });
      expect(res.status, path).toBe(400);
      expect(res.json.error.code).toBe("bad_request");
    }
  });

  it("answers one spelling per API route: other spellings and request targets that are not a path get a JSON 404 or 400, never Next's redirect or crash", async () => {
    for (const path of ["/api/sessions/", "/api/questions/q1/reply/", "/api//sessions", "//api/sessions", "/api/sessions/%2e"]) {
      const res = await send({ method: path.includes("reply") ? "POST" : "GET", path, headers: bearer });
      expect(res.status, path).toBe(404);
      expect(res.json.error.code, path).toBe("not_found:route");
      expect(reached, path).toBeNull();
    }
    for (const path of ["*", `http://127.0.0.1:${port}/api/sessions`]) {
      const res = await send({ method: path === "*" ? "OPTIONS" : "GET", path, headers: bearer });
      expect(res.status, path).toBe(400);
      expect(res.json.error.code, path).toBe("bad_request");
    }
    // A path the error names is clipped.
    const long = await send({ path: `/api/nope/${"x".repeat(10_000)}`, headers: bearer });
    expect(long.json.error.message.length).toBeLessThan(300);
  });

  it("limits writes per client with 429 and Retry-After", async () => {
    const create = () => send({ method: "POST", path: "/api/sessions", headers: { ...bearer, ...json }, body: "{}" });
    expect((await create()).status).toBe(200);
    expect((await create()).status).toBe(200);
    const limited = await create();
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe("rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("lets the installable app's files through without sign-in (a browser fetches them with no cookie), and allows the worker and manifest in the page's policy", async () => {
    for (const path of ["/manifest.webmanifest", "/sw.js", "/offline.html", "/icons/icon-192.png", "/apple-icon.png"]) {
      const res = await send({ path });
      expect(res.status, path).toBe(200);
      expect(reached?.principal, path).toBeNull();
    }
    for (const path of ["/", "/s/abc", "/sw.js/x", "/icons"]) expect((await send({ path })).status, path).toBe(303);
    const csp = String((await send({ path: "/offline.html" })).headers["content-security-policy"]);
    expect(csp).toMatch(/worker-src 'self'/);
    expect(csp).toMatch(/manifest-src 'self'/);
  });

  it("takes a person's sign-in link to the sign-in page without spending it (a link preview must not use it up)", async () => {
    const { link } = await fake.parley.people.add("lee", { addedBy: "local" });
    for (const headers of [{}, { ...bearer }]) {
      const res = await send({ path: `/s/abc?x=1&signin=${link}`, headers });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(`/sign-in?signin=${link}&next=%2Fs%2Fabc%3Fx%3D1`);
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
    expect(await fake.parley.people.spendLink(link)).toMatchObject({ name: "lee" });
  });

  it("signs a browser in from the printed URL, and sends one without a credential to the sign-in page", async () => {
    const page = await send({ path: "/s/abc?x=1" });
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe("/sign-in?next=%2Fs%2Fabc%3Fx%3D1");

    const wrong = await send({ path: "/?token=nope" });
    expect(wrong.headers.location).toMatch(/^\/sign-in\?error=invalid_token/);
    expect(wrong.headers["set-cookie"]).toBeUndefined();

    const signIn = await send({ path: `/s/abc?token=${TOKEN}` });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toBe("/s/abc");
    const cookie = String(signIn.headers["set-cookie"]);
    expect(cookie).toMatch(/^parley_session_[0-9a-f]{8}=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);

    const signedIn = await send({ path: "/s/abc", headers: { cookie: cookie.split(";")[0]! } });
    expect(signedIn.status).toBe(200);
    expect(reached?.principal?.via).toBe("cookie");
    // The page's policy: a fresh nonce for Next's scripts, no inline script otherwise, no framing.
    const csp = String(signedIn.headers["content-security-policy"]);
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(csp).not.toMatch(/unsafe-inline'[^;]*;[^;]*script|script-src[^;]*unsafe-inline/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(reached?.headers["content-security-policy"]).toBe(csp);
    expect(signedIn.headers["x-content-type-options"]).toBe("nosniff");
    expect(signedIn.headers["referrer-policy"]).toBe("no-referrer");

    // A signed-in browser following an old link: the stale token just leaves the address bar.
    const oldLink = await send({ path: "/s/abc?token=an-old-token", headers: { cookie: cookie.split(";")[0]! } });
    expect(oldLink.headers.location).toBe("/s/abc");
    expect(oldLink.headers["set-cookie"]).toBeUndefined();

    // Sign-in attempts are limited too (3 per minute here: nope, the good one, the old link).
    expect((await send({ path: "/?token=again" })).status).toBe(429);
  });
});
