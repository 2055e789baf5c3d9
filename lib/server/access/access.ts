import { AppError } from "../../protocol/errors";
import type { Db } from "../store/db/client";
import { rotateKeptToken } from "./kept-token";
import { createApiTokens } from "./api-tokens";
import { createAuthenticator } from "./authenticator";
import { TRUST_NO_PROXY, type ProxyTrust } from "./client-address";
import { createRateLimits, type RateLimitSettings } from "./rate-limits";
import { randomSecret } from "./secrets";
import { createBrowserSessions } from "./browser-sessions";
import { createPeopleCache } from "./people-cache";
import { createPeopleStore } from "../store/people/people-store";
import { createCookieSigner, loadCookieKey } from "./session-cookie";
import { openSessionEpoch } from "./session-epoch";
import { createVisibility } from "./visibility";

export interface AccessOptions {
  /** PARLEY_TOKEN; without it a token is generated for this run of the server and printed with its URL. */
  token?: string;
  /** Where a token made for the database is kept (none with PARLEY_TOKEN): only such a token can be rotated. */
  tokenFile?: string;
  rateLimits?: RateLimitSettings;
  /** PARLEY_TRUST_PROXY: the proxies believed about a client's address and scheme; none by default. */
  trustProxy?: ProxyTrust;
}

/** Everything that decides who may do what: credentials, visibility of ids, and rate limits. */
export async function openAccess(db: Db, { token, tokenFile, rateLimits, trustProxy = TRUST_NO_PROXY }: AccessOptions = {}, { now = Date.now }: { now?: () => number } = {}) {
  let serverToken = token || randomSecret(24);
  const apiTokens = createApiTokens(db);
  // Cookies are tied to the database's key, the server token and the revocation epoch: all three are the same on every node.
  const signer = createCookieSigner({ key: await loadCookieKey(db), serverToken, now });
  const browserSessions = createBrowserSessions({ signer, epoch: await openSessionEpoch(db, { now }), now });
  const limits = createRateLimits(rateLimits);
  const peopleCache = createPeopleCache(createPeopleStore(db.exec), { now });
  return {
    get serverToken() {
      return serverToken;
    },
    generatedToken: !token,
    /** A new server token, kept in the token file; the old one is refused from now on. */
    rotateServerToken(): void {
      if (!tokenFile) throw new AppError("forbidden", "This server's token was chosen with PARLEY_TOKEN: set a new one and restart the server.");
      serverToken = rotateKeptToken(tokenFile);
    },
    apiTokens,
    browserSessions,
    /** Who exists, as the authenticator reads it (cached for a second; forgotten when people change). */
    peopleCache,
    authenticator: createAuthenticator({ serverToken: () => serverToken, apiTokens, browserSessions, rateLimits: limits, people: peopleCache }),
    visibility: createVisibility(db),
    rateLimits: limits,
    /** Which proxies are believed: HTTP requests and socket handshakes take the client's address with it (`clientAddress`). */
    proxyTrust: trustProxy,
  };
}

export type Access = Awaited<ReturnType<typeof openAccess>>;
