import type { Server } from "node:http";

/**
 * How long an idle keep-alive connection stays open. Node's 5 s is shorter than most clients keep
 * theirs (browsers, proxies, Playwright's request context): a client that sends on a connection the
 * server is closing that moment gets ECONNRESET. The server must keep it longer than its clients.
 */
export const KEEP_ALIVE_MS = 65_000;

export function keepConnectionsAlive(server: Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // A request's headers must be allowed to take longer than the idle wait before it.
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
}
