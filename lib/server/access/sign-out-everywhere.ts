import type { SignOutEverywhereResult } from "../../protocol/access";
import type { ClusterLink } from "../cluster/cluster-link";
import type { DomainEvents } from "../events";
import type { BrowserSessions } from "./browser-sessions";

/**
 * "Sign out everywhere": a new revocation epoch in the database refuses every browser cookie
 * issued before it. This node believes it at once; the other nodes are told over the cluster bus
 * (and without it read the database within EPOCH_CACHE_MS); every node's transports hear
 * `cookies.revoked` and drop the sockets of refused cookies.
 */
export function createSignOutEverywhere({ browserSessions, cluster, events }: { browserSessions: BrowserSessions; cluster: ClusterLink; events: DomainEvents }) {
  cluster.on((message) => {
    if (message.type !== "cookies.revoked") return;
    browserSessions.signedOutElsewhere();
    events.emit("cookies.revoked");
  });

  return async function signOutEverywhere(): Promise<SignOutEverywhereResult> {
    const { at } = await browserSessions.signOutEverywhere();
    cluster.publish({ type: "cookies.revoked", to: null });
    events.emit("cookies.revoked");
    return { signedOut: "everywhere", at: at.toISOString() };
  };
}
