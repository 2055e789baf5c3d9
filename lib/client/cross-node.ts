import { useSyncExternalStore } from "react";
import type { CrossNodeStatus } from "../protocol/cluster";
import { ServerStatusSchema } from "../protocol/socket";

/** The part of a socket this store listens to (a Socket.IO client socket). */
export interface StatusSocket {
  connected: boolean;
  on(event: string, handler: (...args: unknown[]) => void): unknown;
}

export interface CrossNodeStore {
  /** What the server last said while this socket is connected; null before it says, and while disconnected (the connection banner speaks then). */
  get(): CrossNodeStatus | null;
  subscribe(listener: () => void): () => void;
}

const stores = new WeakMap<object, CrossNodeStore>();

/**
 * Whether the tab's server hears the other servers, from its `server.status` events. One store per
 * socket, listening from the first call on: call it when the socket is created so the status sent
 * on connect is not missed. A malformed payload is ignored (the last good status stands).
 */
export function crossNodeStore(socket: StatusSocket): CrossNodeStore {
  const existing = stores.get(socket);
  if (existing) return existing;
  let status: CrossNodeStatus | null = null;
  const listeners = new Set<() => void>();
  const set = (next: CrossNodeStatus | null) => {
    if (next === status) return;
    status = next;
    listeners.forEach((l) => l());
  };
  socket.on("server.status", (payload: unknown) => {
    const parsed = ServerStatusSchema.safeParse(payload);
    if (parsed.success) set(parsed.data.crossNode);
  });
  socket.on("disconnect", () => set(null));
  const store: CrossNodeStore = {
    get: () => status,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  stores.set(socket, store);
  return store;
}

/** The text of the banner for a status, or null for none (one node, or the others are heard). */
export function crossNodeNotice(status: CrossNodeStatus | null): string | null {
  return status === "lost" ? "Live updates from other servers are paused. This tab still works; reconnecting…" : null;
}

const none = () => null;
const noSubscribe = () => () => {};

/** The banner's text for this tab's socket (none on the server rendering the page). */
export function useCrossNodeNotice(store: CrossNodeStore | null): string | null {
  const status = useSyncExternalStore(store?.subscribe ?? noSubscribe, store?.get ?? none, none);
  return crossNodeNotice(status);
}
