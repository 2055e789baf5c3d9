import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../protocol/rest";
import { createDirectRoutes, type RouteModule } from "./direct-routes";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A server that answers through the direct routes, and "next" for whatever they leave. */
async function serve(modules: Record<string, RouteModule>): Promise<string> {
  const direct = createDirectRoutes(modules);
  server = createServer((req, res) => {
    void direct(req, res).then((handled) => {
      if (!handled) res.end("next");
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("direct routes", () => {
  it("hands the route's handler the request, its decoded params and body, and sends its response back whole", async () => {
    const url = await serve({
      "/api/questions/:id/reply": {
        POST: async (req, { params }) => {
          const body = (await req.json()) as unknown;
          const headers = new Headers({ "x-seen": req.headers.get("x-parley-test") ?? "" });
          headers.append("set-cookie", "a=1");
          headers.append("set-cookie", "b=2");
          return Response.json({ params: await (params as Promise<unknown>), body, query: new URL(req.url).search, method: req.method }, { status: 201, headers });
        },
      },
    });
    const res = await fetch(`${url}/api/questions/a%20b/reply?x=1`, { method: "POST", headers: { "x-parley-test": "yes", "content-type": "application/json" }, body: '{"value":"ok"}' });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-seen")).toBe("yes");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await res.json()).toEqual({ params: { id: "a b" }, body: { value: "ok" }, query: "?x=1", method: "POST" });
  });

  it("leaves to Next a route or a method it does not list, and a path that is no route", async () => {
    const url = await serve({ "/api/sessions/:id/runs": { POST: async () => Response.json({ direct: true }) } });
    expect(await (await fetch(`${url}/api/sessions/s1/runs`)).text()).toBe("next");
    expect(await (await fetch(`${url}/api/sessions/s1/messages`, { method: "POST", body: "{}" })).text()).toBe("next");
    expect(await (await fetch(`${url}/api/questions/%ff`)).text()).toBe("next");
    expect(await (await fetch(`${url}/`)).text()).toBe("next");
    expect(await (await fetch(`${url}/api/sessions/s1/runs`, { method: "POST", body: "{}" })).json()).toEqual({ direct: true });
  });

  it("stops reading a body past the limit, so the route's own check refuses it", async () => {
    let seen = 0;
    const url = await serve({
      "/api/asks": {
        POST: async (req) => {
          seen = (await req.arrayBuffer()).byteLength;
          return Response.json({ error: { code: "payload_too_large" } }, { status: 413 });
        },
      },
    });
    const res = await fetch(`${url}/api/asks`, { method: "POST", body: "x".repeat(MAX_BODY_BYTES * 2) });
    expect(res.status).toBe(413);
    expect(seen).toBeGreaterThan(MAX_BODY_BYTES);
    expect(seen).toBeLessThan(MAX_BODY_BYTES * 2);
  });

  it("answers a typed 500 when a handler throws instead of answering", async () => {
    const url = await serve({ "/api/health": { GET: async () => Promise.reject(new Error("boom")) } });
    const res = await fetch(`${url}/api/health`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: "internal", message: expect.any(String) } });
  });

  it("aborts the request's signal when the client goes before the answer, as Next does", async () => {
    let heard: (aborted: boolean) => void = () => {};
    const aborted = new Promise<boolean>((resolve) => (heard = resolve));
    const url = await serve({
      "/api/questions/:id": {
        GET: (req) =>
          new Promise<Response>((resolve) => {
            req.signal.addEventListener("abort", () => {
              heard(true);
              resolve(Response.json({}));
            });
            setTimeout(() => (heard(false), resolve(Response.json({}))), 5_000);
          }),
      },
    });
    const client = new AbortController();
    const request = fetch(`${url}/api/questions/q1?wait=5`, { signal: client.signal }).catch(() => null);
    setTimeout(() => client.abort(), 200);
    expect(await aborted).toBe(true);
    await request;
  });
});
