import { createServer, connect, type AddressInfo, type Socket } from "node:net";
import { createDb, type Db } from "../../lib/server/store/db/client";
import { ping } from "../../lib/server/store/health-statements";

/** How long the proxy holds each chunk, each way: far above loopback's, so a round trip is the proxy's. */
export const ONE_WAY_MS = 40;

export interface SlowProxy {
  port: number;
  flights: number;
  /**
   * Told as a flight leaves the client, `delayMs` before PostgreSQL has it: room for another
   * connection's work first. A promise returned holds the flight until it settles too, so that
   * work comes first however slow a loaded machine makes it.
   */
  onFlight?: (flight: number) => void | Promise<unknown>;
  close(): void;
}

/**
 * A TCP proxy to PostgreSQL that holds every chunk `delayMs` each way, and counts the client's
 * flights: what it sends after an answer has reached it, up to the next answer (one round trip
 * each). Counted, not timed: a timed count flaked under a loaded CI (3.03 round trips).
 */
export async function slowProxy(target: URL, delayMs: number): Promise<SlowProxy> {
  const sockets = new Set<Socket>();
  let answered = true;
  const proxy: SlowProxy = {
    port: 0,
    flights: 0,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      // Each chunk leaves when its delay is up, not when Nagle's algorithm lets it.
      s.setNoDelay(true);
      s.on("error", () => {});
      s.on("close", () => (client.destroy(), upstream.destroy()));
    }
    let held: Promise<unknown> = Promise.resolve();
    client.on("data", (chunk) => {
      if (answered) {
        proxy.flights++;
        held = Promise.resolve(proxy.onFlight?.(proxy.flights)).catch(() => {});
      }
      answered = false;
      const until = held;
      setTimeout(() => void until.then(() => upstream.write(chunk)), delayMs);
    });
    upstream.on("data", (chunk) =>
      setTimeout(() => {
        answered = true;
        client.write(chunk);
      }, delayMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.port = (server.address() as AddressInfo).port;
  return proxy;
}

/** A Db on `databaseUrl` through a slowProxy, on one connection, already connected: its flights count from 0. */
export async function slowDb(databaseUrl: string): Promise<{ db: Db; proxy: SlowProxy; close(): Promise<void> }> {
  const proxy = await slowProxy(new URL(databaseUrl), ONE_WAY_MS);
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${proxy.port}`;
  const db = await createDb(url.toString(), { poolSize: 1 });
  await db.exec.rows(ping, {});
  proxy.flights = 0;
  return {
    db,
    proxy,
    close: async () => {
      await db.close();
      proxy.close();
    },
  };
}
