import { AsyncLocalStorage } from "node:async_hooks";
import type { Principal } from "../access/authenticator";

/**
 * Who the gate signed in, carried to the route or page that serves the request as a value: no
 * header a client could send, nothing to parse back. One store per process (on globalThis), as the
 * server's bundle and Next's route bundles each hold their own copy of this module.
 */
const KEY = Symbol.for("parley.request-principal");
const holder = globalThis as unknown as Record<symbol, AsyncLocalStorage<{ principal: Principal | null }> | undefined>;
const store = (holder[KEY] ??= new AsyncLocalStorage());

/** Serves a request (everything `serve` does, awaited or not) as `principal`. */
export function servedAs<T>(principal: Principal | null, serve: () => T): T {
  return store.run({ principal }, serve);
}

/** The principal of the request being served: null when signed out, or outside a request. */
export function requestPrincipal(): Principal | null {
  return store.getStore()?.principal ?? null;
}
