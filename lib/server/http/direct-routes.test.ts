import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../protocol/rest";
import { createDirectRoutes, type RouteModule } from "./direct-routes";
import type { DirectHandler, RouteReply } from "./json-route";

let server: Server | undefined;
// Not waiting for a connection a client broke off (undici keeps its socket for seconds).
afterEach(() => new Promise<void>((resolve) => (server ? (server.close(() => resolve()), server.closeAllConnections()) : resolve())));

/** A server that answers through the direct routes, and "next" for whatever they leave. */
async function serve(modules: Record<string, RouteModule | { direct: DirectHandler }>): Promise<string> {
  // A route given as one handler answers the method each test sends.
  const direct = createDirectRoutes(Object.fromEntries(Object.entries(modules).map(([path, m]) => [path, "direct" in m ? { GET: m, POST: m } : m])));
  server = createServer((req, res) => {
    // As the gate signed in: the server token's owner.
    void direct(req, res, { ownerId: "local", via: "server_token", credential: "server", admin: true }).then((handled) => {
      if (!handled) res.end("next");
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("direct routes", () => {
  it("hands the route's handler the request, its caller, its decoded params and body, and writes its JSON as Response.json would", async () => {
    const url = await serve({
      "/api/questions/:id/reply": {
        direct: async (req, params) => {
          const body = JSON.parse((await req.bodyText(MAX_BODY_BYTES)) ?? "null") as unknown;
          return { status: 201, data: { params, body, url: req.url, seen: req.headers.get("X-Parley-Test"), absent: req.headers.get("x-absent"), method: req.method, caller: req.principal?.ownerId } };
        },
      },
    });
    const res = await fetch(`${url}/api/questions/a%20b/reply?x=1`, { method: "POST", headers: { "x-parley-test": "yes", "content-type": "application/json" }, body: '{"value":"ok"}' });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ params: { id: "a b" }, body: { value: "ok" }, url: `${url}/api/questions/a%20b/reply?x=1`, seen: "yes", absent: null, method: "POST", caller: "local" });
  });

  it("sends a Response the handler made itself whole, its cookies one by one", async () => {
    const url = await serve({
      "/api/sessions": {
        direct: async () => {
          const headers = new Headers({ "x-made": "by hand" });
          headers.append("set-cookie", "a=1");
          headers.append("set-cookie", "b=2");
          return new Response("made", { status: 202, headers });
        },
      },
    });
    const res = await fetch(`${url}/api/sessions`, { method: "POST" });
    expect(res.status).toBe(202);
    expect(res.headers.get("x-made")).toBe("by hand");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await res.text()).toBe("made");
  });

  it("leaves to Next a route or a method it does not list, and a path that is no route", async () => {
    const url = await serve({ "/api/sessions/:id/runs": { POST: { direct: async () => ({ status: 200, data: { direct: true } }) } } });
    expect(await (await fetch(`${url}/api/sessions/s1/runs`)).text()).toBe("next");
    expect(await (await fetch(`${url}/api/sessions/s1/messages`, { method: "POST", body: "{}" })).text()).toBe("next");
    expect(await (await fetch(`${url}/api/questions/%ff`)).text()).toBe("next");
    expect(await (await fetch(`${url}/`)).text()).toBe("next");
    expect(await (await fetch(`${url}/api/sessions/s1/runs`, { method: "POST", body: "{}" })).json()).toEqual({ direct: true });
  });

  it("stops reading a body past the limit: the handler hears it is too large, and the request it hands on holds no more than the limit and a chunk", async () => {
    let text: string | null = "";
    let handedOn = 0;
    const url = await serve({
      "/api/asks": {
        direct: async (req) => {
          text = await req.bodyText(MAX_BODY_BYTES);
          handedOn = (await (await req.fetchRequest()).arrayBuffer()).byteLength;
          return { status: 413, data: { error: { code: "payload_too_large" } } };
        },
      },
    });
    const res = await fetch(`${url}/api/asks`, { method: "POST", body: "x".repeat(MAX_BODY_BYTES * 2) });
    expect(res.status).toBe(413);
    expect(text).toBeNull();
    expect(handedOn).toBeGreaterThan(MAX_BODY_BYTES);
    expect(handedOn).toBeLessThan(MAX_BODY_BYTES * 2);
  });

  it("hands on the request whole as a WHATWG Request for a handler that needs one", async () => {
    const url = await serve({
      "/api/asks": {
        direct: async (req) => {
          const whole = await req.fetchRequest();
          return { status: 200, data: { method: whole.method, url: whole.url, header: whole.headers.get("x-parley-test"), body: await whole.text() } };
        },
      },
    });
    const res = await fetch(`${url}/api/asks?y=2`, { method: "POST", headers: { "x-parley-test": "yes" }, body: "hello" });
    expect(await res.json()).toEqual({ method: "POST", url: `${url}/api/asks?y=2`, header: "yes", body: "hello" });
  });

  it("answers a typed 500 when a handler throws instead of answering", async () => {
    const url = await serve({ "/api/health": { direct: async () => Promise.reject(new Error("boom")) } });
    const res = await fetch(`${url}/api/health`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: "internal", message: expect.any(String) } });
  });

  it("aborts the request's signal when the client goes before the answer, as Next does", async () => {
    let heard: (aborted: boolean) => void = () => {};
    const aborted = new Promise<boolean>((resolve) => (heard = resolve));
    const url = await serve({
      "/api/questions/:id": {
        direct: (req) =>
          new Promise<RouteReply>((resolve) => {
            req.signal.addEventListener("abort", () => {
              heard(true);
              resolve({ status: 200, data: {} });
            });
            setTimeout(() => (heard(false), resolve({ status: 200, data: {} })), 5_000);
          }),
      },
    });
    const client = new AbortController();
    const request = fetch(`${url}/api/questions/q1?wait=5`, { signal: client.signal }).catch(() => null);
    setTimeout(() => client.abort(), 200);
    expect(await aborted).toBe(true);
    await request;
  });

  it("gives a signal already aborted to a handler that asks for it after the client went", async () => {
    let seen: (aborted: boolean) => void = () => {};
    const aborted = new Promise<boolean>((resolve) => (seen = resolve));
    const url = await serve({
      "/api/questions/:id": {
        direct: async (req) => {
          await new Promise((resolve) => setTimeout(resolve, 400));
          seen(req.signal.aborted);
          return { status: 200, data: {} };
        },
      },
    });
    const client = new AbortController();
    const request = fetch(`${url}/api/questions/q1`, { signal: client.signal }).catch(() => null);
    setTimeout(() => client.abort(), 100);
    expect(await aborted).toBe(true);
    await request;
  });
});
