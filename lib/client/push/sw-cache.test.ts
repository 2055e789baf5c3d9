import { describe, expect, it } from "vitest";
import { fakeSw, ORIGIN } from "./fake-sw-env";
import { dropOldShells, installShell, OFFLINE_URL, respond, routeOf, shellCacheName, SHELL_ASSETS } from "./sw-cache";
import { DEVICE_CACHE } from "./this-device-store";

const get = (path: string, mode = "cors") => ({ method: "GET", url: `${ORIGIN}${path}`, mode });
const cachedUrls = (sw: ReturnType<typeof fakeSw>) => [...sw.cacheStore.values()].flatMap((c) => [...c.keys()]);

describe("the service worker's fetch", () => {
  it("never takes the API, Socket.IO, /mcp, writes or other origins: the browser fetches them itself", () => {
    for (const path of ["/api/sessions", "/api", "/api/push/key", "/socket.io/?EIO=4&transport=polling", "/mcp", "/mcp/x"]) {
      expect(routeOf(get(path), ORIGIN, false), path).toBe("network");
      expect(routeOf(get(path, "navigate"), ORIGIN, false), path).toBe("network");
    }
    expect(routeOf({ method: "POST", url: `${ORIGIN}/s/1`, mode: "navigate" }, ORIGIN, false)).toBe("network");
    expect(routeOf({ method: "GET", url: "https://cdn.example/_next/static/a.js", mode: "cors" }, ORIGIN, false)).toBe("network");
  });

  it("navigations go to the network first; hashed assets and icons come from the cache, except in development", () => {
    expect(routeOf(get("/s/abc", "navigate"), ORIGIN, false)).toBe("navigate");
    expect(routeOf(get("/_next/static/chunks/a1b2.js"), ORIGIN, false)).toBe("cache-first");
    expect(routeOf(get("/icons/icon-192.png"), ORIGIN, false)).toBe("cache-first");
    expect(routeOf(get("/_next/static/chunks/a1b2.js"), ORIGIN, true)).toBe("network");
    expect(routeOf(get("/_next/image?url=x"), ORIGIN, false)).toBe("network");
  });

  it("installs the shell under the build's name and drops other builds' shells, not this device's record", async () => {
    const sw = fakeSw();
    sw.respond = (url) => new Response(`file ${url}`);
    sw.cacheStore.set(shellCacheName("build-1"), new Map());
    sw.cacheStore.set(DEVICE_CACHE, new Map());
    await installShell(sw.env);
    expect([...sw.cacheStore.get(shellCacheName("build-2"))!.keys()]).toEqual(SHELL_ASSETS.map((p) => `${ORIGIN}${p}`));
    await dropOldShells(sw.env);
    expect([...sw.cacheStore.keys()].sort()).toEqual([DEVICE_CACHE, shellCacheName("build-2")].sort());
  });

  it("a navigation the server can't answer shows the cached offline page; one it answers is never cached", async () => {
    const sw = fakeSw();
    sw.respond = (url) => new Response(url.endsWith(OFFLINE_URL) ? "Parley is offline" : "page", { headers: { "set-cookie": "a=b" } });
    await installShell(sw.env);
    const page = await respond(sw.env, new Request(`${ORIGIN}/s/1`), "navigate");
    expect(await page.text()).toBe("page");
    expect(cachedUrls(sw)).not.toContain(`${ORIGIN}/s/1`);

    sw.respond = () => {
      throw new TypeError("Failed to fetch");
    };
    expect(await (await respond(sw.env, new Request(`${ORIGIN}/s/1`), "navigate")).text()).toBe("Parley is offline");
    sw.respond = () => new Response("Bad Gateway", { status: 502 });
    expect(await (await respond(sw.env, new Request(`${ORIGIN}/s/1`), "navigate")).text()).toBe("Parley is offline");
  });

  it("caches an asset once and serves it from the cache after; never one that sets a cookie or failed", async () => {
    const sw = fakeSw();
    sw.respond = () => new Response("js");
    const asset = `${ORIGIN}/_next/static/chunks/a.js`;
    expect(await (await respond(sw.env, new Request(asset), "cache-first")).text()).toBe("js");
    expect(await (await respond(sw.env, new Request(asset), "cache-first")).text()).toBe("js");
    expect(sw.fetched).toHaveLength(1);

    sw.respond = (url) => (url.endsWith("b.js") ? new Response("b", { headers: { "set-cookie": "s=1" } }) : new Response("", { status: 404 }));
    await respond(sw.env, new Request(`${ORIGIN}/_next/static/chunks/b.js`), "cache-first");
    await respond(sw.env, new Request(`${ORIGIN}/_next/static/chunks/c.js`), "cache-first");
    expect(cachedUrls(sw)).toEqual([asset]);
  });
});
