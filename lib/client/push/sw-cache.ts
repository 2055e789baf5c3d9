import type { SwEnv } from "./sw-env";

/**
 * The app shell cache: the offline page and the icons it paints, cached on install under the
 * build's name; content-hashed /_next/static files and icons are served cache-first. Nothing else
 * is ever cached: not the API, not Socket.IO, not /mcp, not a page (pages carry the person's data
 * and a per-response CSP nonce), not a response that sets a cookie.
 */
export const SHELL_CACHE_PREFIX = "parley-shell-";
export const shellCacheName = (version: string) => `${SHELL_CACHE_PREFIX}${version}`;
export const OFFLINE_URL = "/offline.html";
export const SHELL_ASSETS = [OFFLINE_URL, "/icons/icon-192.png", "/icon.svg"] as const;

/** navigate: network first, the offline page when the server can't be reached; cache-first: immutable files; network: the browser's own fetch. */
export type FetchRoute = "navigate" | "cache-first" | "network";

const NEVER_CACHED = [/^\/api(\/|$)/, /^\/socket\.io(\/|$)/, /^\/mcp([/;]|$)/];
const IMMUTABLE = [/^\/_next\/static\//, /^\/icons\//, /^\/icon\.svg$/, /^\/apple-icon\.png$/];
/** A proxy in front of Parley answers these when Parley itself is down. */
const SERVER_UNREACHABLE = new Set([502, 504]);

export function routeOf(request: { method: string; url: string; mode: string }, origin: string, dev: boolean): FetchRoute {
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== origin) return "network";
  if (NEVER_CACHED.some((r) => r.test(url.pathname))) return "network";
  if (request.mode === "navigate") return "navigate";
  if (!dev && IMMUTABLE.some((r) => r.test(url.pathname))) return "cache-first";
  return "network";
}

export const mayCache = (res: Response) => res.ok && res.type !== "opaque" && !res.headers.has("set-cookie");

export async function installShell(env: SwEnv): Promise<void> {
  const cache = await env.caches.open(shellCacheName(env.version));
  // `cache: "reload"`: the files as the server has them now, not as the HTTP cache remembers them.
  await cache.addAll(SHELL_ASSETS.map((path) => new Request(new URL(path, env.origin).href, { cache: "reload" })));
}

/** Drops the shell caches of other builds (not this device's record, which lives in a cache of its own). */
export async function dropOldShells(env: SwEnv): Promise<void> {
  const current = shellCacheName(env.version);
  const names = await env.caches.keys();
  await Promise.all(names.filter((n) => n.startsWith(SHELL_CACHE_PREFIX) && n !== current).map((n) => env.caches.delete(n)));
}

export async function offlinePage(env: SwEnv): Promise<Response> {
  const cached = await env.caches.match(OFFLINE_URL, { cacheName: shellCacheName(env.version) });
  return cached ?? new Response("Parley is offline — can't reach the server.", { status: 503, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
}

/** The answer to a request the worker takes (route navigate or cache-first). */
export async function respond(env: SwEnv, request: Request, route: Exclude<FetchRoute, "network">): Promise<Response> {
  if (route === "navigate") {
    try {
      const res = await env.fetch(request);
      return SERVER_UNREACHABLE.has(res.status) ? await offlinePage(env) : res;
    } catch {
      return offlinePage(env);
    }
  }
  const cache = await env.caches.open(shellCacheName(env.version));
  const hit = await cache.match(request);
  if (hit) return hit;
  const res = await env.fetch(request);
  if (mayCache(res)) await cache.put(request, res.clone());
  return res;
}
