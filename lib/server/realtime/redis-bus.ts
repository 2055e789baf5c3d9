import { createAdapter } from "@socket.io/redis-adapter";
import { Redis } from "ioredis";
import { log } from "../log";

/** Whether both Redis connections are up: `connected`, or `lost` (down, reconnecting, or not yet connected). */
export type RedisBusStatus = "connected" | "lost";

export interface RedisBusOptions {
  url: string;
  /** The adapter's channel prefix: nodes of one deployment share it; tests use their own so parallel runs do not hear each other. */
  key?: string;
}

/** The Redis commands the adapter calls without handling their promise: a rejection is caught here. */
const UNHANDLED = ["publish", "psubscribe", "punsubscribe", "subscribe", "unsubscribe"] as const;

/**
 * Socket.IO's Redis adapter with its two connections (publish, subscribe), made safe to lose:
 * - the publisher does not queue while Redis is away (a broadcast is sent now or never: tabs on other
 *   nodes resync from a snapshot when they rejoin), and its failures are caught, so local delivery
 *   (`super.broadcast`, done right after the publish) goes on;
 * - the subscriber queues its subscriptions until the first connection and resubscribes after each reconnect;
 * - ioredis reconnects by itself (backoff up to 2 s); the status flips to `lost` when either connection drops
 *   and back to `connected` when both are ready; each outage is logged once.
 */
export function createRedisBus({ url, key = "parley" }: RedisBusOptions) {
  const common = {
    retryStrategy: (times: number) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
    connectTimeout: 2_000,
    // Without this a stalled publish waits for 20 reconnects; with the offline queue off it fails at once anyway.
    maxRetriesPerRequest: 1,
  };
  const pub = new Redis(url, { ...common, enableOfflineQueue: false });
  // The subscriber queues until it is connected: the adapter subscribes before the first connection.
  const sub = new Redis(url, { ...common, enableOfflineQueue: true, maxRetriesPerRequest: null });

  let status: RedisBusStatus = "lost";
  let outageLogged = false;
  let closed = false;
  const listeners = new Set<(status: RedisBusStatus) => void>();

  const reportOnce = (what: string, err: unknown) => {
    if (closed || outageLogged) return;
    outageLogged = true;
    log.warn({ reason: err instanceof Error ? err.message : String(err) }, `[redis] ${what}; this node serves its own tabs until Redis is back (reconnecting by itself)`);
  };

  for (const client of [pub, sub]) {
    for (const name of UNHANDLED) {
      const original = (client[name] as (...args: unknown[]) => Promise<unknown>).bind(client);
      (client as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
        original(...args).catch((err: unknown) => {
          reportOnce(`${name} failed`, err);
          return undefined;
        });
    }
  }

  const recompute = () => {
    if (closed) return;
    const next: RedisBusStatus = pub.status === "ready" && sub.status === "ready" ? "connected" : "lost";
    if (next === status) return;
    const wasLost = status === "lost" && outageLogged;
    status = next;
    if (next === "connected") {
      if (wasLost) log.info("[redis] connected again: updates from other nodes resume");
      outageLogged = false;
    } else {
      reportOnce("connection lost", new Error(`publisher ${pub.status}, subscriber ${sub.status}`));
    }
    for (const listener of listeners) listener(next);
  };

  for (const client of [pub, sub]) {
    for (const event of ["ready", "close", "end", "reconnecting"]) client.on(event, recompute);
    // An 'error' without a listener would crash the process: report it once per outage.
    client.on("error", (err: Error) => {
      reportOnce("error", err);
      recompute();
    });
  }

  // A query to the other nodes (a join asking for their streams) waits for a slow node this long at most.
  const adapter = createAdapter(pub, sub, { key, requestsTimeout: 1_000 });

  return {
    /** For `io.adapter(...)`. */
    adapter,
    /** A connection for plain commands (shared rate limits), under this prefix; it fails at once, without queueing, while Redis is away. */
    commands: pub,
    key,
    status: (): RedisBusStatus => status,
    onStatus(listener: (status: RedisBusStatus) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Ends both connections (after `io.close()`, which closes the adapter). */
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      listeners.clear();
      await Promise.all([pub, sub].map(async (c) => (c.status === "ready" ? c.quit().catch(() => c.disconnect()) : c.disconnect())));
    },
  };
}

export type RedisBus = ReturnType<typeof createRedisBus>;
