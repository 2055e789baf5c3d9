import type { IncomingMessage } from "node:http";
import type { ProxyTrust } from "../access/client-address";
import type { RouteRequest } from "./route-request";

/** The client of a request as the gate reads it (client-address.ts): its address and whether it came over HTTPS. */
export interface GatedClient {
  address: string;
  https: boolean;
}

/**
 * Next reads X-Forwarded-* itself (the scheme of a route's `req.url`, its own `x-forwarded-for`),
 * and would believe whatever a client sends. The gate overwrites them on every request it passes
 * on with what it trusts (PARLEY_TRUST_PROXY), so route handlers and Next see only that.
 */
export function settleForwardedHeaders(req: IncomingMessage, client: GatedClient, trust: ProxyTrust): void {
  req.headers["x-forwarded-for"] = client.address;
  req.headers["x-forwarded-proto"] = client.https ? "https" : "http";
  const peer = req.socket.remoteAddress;
  if (peer === undefined || !trust(peer, 0)) {
    delete req.headers["x-forwarded-host"];
    delete req.headers["x-forwarded-port"];
  }
}

/** In a route handler: whether the client came over HTTPS, as the gate settled it. */
export const cameOverHttps = (req: Pick<RouteRequest, "headers">): boolean => req.headers.get("x-forwarded-proto") === "https";

/** In a route handler: the client's address, as the gate settled it (what rate limits count by). */
export const clientAddressOf = (req: Pick<RouteRequest, "headers">): string => req.headers.get("x-forwarded-for") ?? "unknown";
