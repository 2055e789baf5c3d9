import type { ApiTokenInfo } from "../../protocol/access";
import type { ClusterLink } from "../cluster/cluster-link";
import type { DomainEvents } from "../events";
import type { ApiTokens } from "./api-tokens";

/**
 * Revokes an API token: it is refused from the moment the database says so, and every socket
 * signed in with it is dropped before this answers (`api-token.revoked`, whose handlers are
 * synchronous), on this node at once and on the others as soon as the cluster bus tells them.
 * A revocation written straight into the database (the CLI with no server) is found by each
 * node's periodic check instead.
 */
export function createRevokeApiToken({ apiTokens, cluster, events }: { apiTokens: ApiTokens; cluster: ClusterLink; events: DomainEvents }) {
  cluster.on((message) => {
    if (message.type === "api-token.revoked") events.emit("api-token.revoked", { id: message.id });
  });

  return async function revokeApiToken(id: string): Promise<ApiTokenInfo> {
    const info = await apiTokens.revoke(id);
    events.emit("api-token.revoked", { id: info.id });
    cluster.publish({ type: "api-token.revoked", to: null, id: info.id });
    return info;
  };
}
