import type { ClusterLink } from "../cluster/cluster-link";
import type { DomainEvents } from "../events";
import type { PeopleCache } from "./people-cache";

/**
 * People were added or removed: this node forgets the people it cached at once, the other nodes
 * when the cluster bus tells them (and without it within PEOPLE_CACHE_MS). A removal is also
 * `cookies.revoked` on every node: each checks its cookie sockets again, and the removed person's
 * fail the check and are dropped (their API tokens' sockets go with the tokens' revocation).
 */
export function createPeopleChanged({ cache, cluster, events }: { cache: PeopleCache; cluster: ClusterLink; events: DomainEvents }) {
  cluster.on((message) => {
    if (message.type !== "people.changed") return;
    cache.forget();
    if (message.removed) events.emit("cookies.revoked");
  });

  return function peopleChanged({ removed }: { removed: boolean }): void {
    cache.forget();
    cluster.publish({ type: "people.changed", to: null, removed });
    if (removed) events.emit("cookies.revoked");
  };
}

export type PeopleChanged = ReturnType<typeof createPeopleChanged>;
