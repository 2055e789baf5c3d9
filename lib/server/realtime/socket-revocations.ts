import type { Parley } from "../app";
import type { DomainHandlers } from "../events";
import { log } from "../log";
import type { ParleyIo, SocketData } from "./socket-types";

/** Drops the sockets whose credentials were revoked: at once when told, and by a periodic check for what this node was not told. */
export interface SocketRevocations {
  /** The revocation events, as domain event handlers. */
  handlers: Pick<DomainHandlers, "cookies.revoked" | "api-token.revoked" | "server-token.rotated">;
  /** Stops the periodic check. */
  stop(): void;
}

export function watchRevocations(io: ParleyIo, access: Pick<Parley["access"], "authenticator" | "apiTokens">, revocationCheckMs: number): SocketRevocations {
  const { authenticator, apiTokens } = access;
  // Revocations this node was not told about: sockets of a revoked API token, or of a cookie refused
  // since (sign out everywhere), are disconnected (their own commands would be refused by nothing
  // else). This node's sockets only: each node checks its own (and a lost Redis does not stop it).
  const dropRevokedTokens = async () => {
    const byToken = (await io.local.fetchSockets()).filter((s) => s.data.principal?.apiTokenId);
    if (byToken.length === 0) return;
    const live = await apiTokens.liveIds([...new Set(byToken.map((s) => s.data.principal.apiTokenId!))]);
    for (const s of byToken) if (!live.has(s.data.principal.apiTokenId!)) s.disconnect(true);
  };
  const dropRevokedCookies = async () => {
    for (const s of await io.local.fetchSockets()) {
      if (s.data.principal?.via !== "cookie") continue;
      // The cookie it signed in with, checked again (against the epoch, cached for a second at most).
      if (!(await authenticator.authenticate({ cookie: s.handshake.headers.cookie }))) s.disconnect(true);
    }
  };
  const checkRevocations = (what: string, check: () => Promise<void>) => check().catch((err) => log.error({ err }, `[realtime] ${what} check failed`));
  const revocations = setInterval(() => {
    void checkRevocations("API token revocation", dropRevokedTokens);
    // A sign-out everywhere this node was not told about (the CLI wrote the database, Redis was away).
    void checkRevocations("cookie revocation", dropRevokedCookies);
  }, revocationCheckMs);
  revocations.unref();
  const dropSockets = (which: (principal: SocketData["principal"]) => boolean) => {
    for (const s of io.sockets.sockets.values()) if (s.data.principal && which(s.data.principal)) s.disconnect(true);
  };
  return {
    handlers: {
      "cookies.revoked": () => void checkRevocations("cookie revocation", dropRevokedCookies),
      // Synchronous, so a revocation has dropped this node's sockets of the token by the time it answers.
      "api-token.revoked": ({ id }) => dropSockets((p) => p.apiTokenId === id),
      "server-token.rotated": () => dropSockets((p) => p.via === "server_token"),
    },
    stop: () => clearInterval(revocations),
  };
}
