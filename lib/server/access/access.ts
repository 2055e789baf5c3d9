import type { Db } from "../db/client";
import { createApiTokens } from "./api-tokens";
import { createAuthenticator } from "./authenticator";
import { TRUST_NO_PROXY, type ProxyTrust } from "./client-address";
import { createRateLimits, type RateLimitSettings } from "./rate-limits";
import { randomSecret } from "./secrets";
import { createBrowserSessions } from "./browser-sessions";
import { createCookieSigner, loadCookieKey } from "./session-cookie";
import { openSessionEpoch } from "./session-epoch";
import { createVisibility } from "./visibility";

export interface AccessOptions {
  /** PARLEY_TOKEN; without it a token is generated for this run of the server and printed with its URL. */
  token?: string;
  rateLimits?: RateLimitSettings;
  /** PARLEY_TRUST_PROXY: the proxies believed about a client's address and scheme; none by default. */
  trustProxy?: ProxyTrust;
}

/** Everything that decides who may do what: credentials, visibility of ids, and rate limits. */
export async function openAccess(db: Db, { token, rateLimits, trustProxy = TRUST_NO_PROXY }: AccessOptions = {}, { now = Date.now }: { now?: () => number } = {}) {
  const serverToken = token || randomSecret(24);
  const apiTokens = createApiTokens(db);
  // Cookies are tied to the database's key, the server token and the revocation epoch: all three are the same on every node.
  const signer = createCookieSigner({ key: await loadCookieKey(db), serverToken, now });
  const browserSessions = createBrowserSessions({ signer, epoch: await openSessionEpoch(db, { now }), now });
  return {
    serverToken,
    generatedToken: !token,
    apiTokens,
    browserSessions,
    authenticator: createAuthenticator({ serverToken, apiTokens, browserSessions }),
    visibility: createVisibility(db),
    rateLimits: createRateLimits(rateLimits),
    /** Which proxies are believed: HTTP requests and socket handshakes take the client's address with it (`clientAddress`). */
    proxyTrust: trustProxy,
  };
}

export type Access = Awaited<ReturnType<typeof openAccess>>;
