import type { Db } from "../db/client";
import { createApiTokens } from "./api-tokens";
import { createAuthenticator } from "./authenticator";
import { createRateLimits, type RateLimitSettings } from "./rate-limits";
import { randomSecret } from "./secrets";
import { createSessionCookies, loadCookieKey } from "./session-cookie";
import { createVisibility } from "./visibility";

export interface AccessOptions {
  /** PARLEY_TOKEN; without it a token is generated for this run of the server and printed with its URL. */
  token?: string;
  rateLimits?: RateLimitSettings;
}

/** Everything that decides who may do what: credentials, visibility of ids, and rate limits. */
export async function openAccess(db: Db, { token, rateLimits }: AccessOptions = {}) {
  const serverToken = token || randomSecret(24);
  const apiTokens = createApiTokens(db);
  const cookies = createSessionCookies(await loadCookieKey(db));
  return {
    serverToken,
    generatedToken: !token,
    apiTokens,
    cookies,
    authenticator: createAuthenticator({ serverToken, apiTokens, cookies }),
    visibility: createVisibility(db),
    rateLimits: createRateLimits(rateLimits),
  };
}

export type Access = Awaited<ReturnType<typeof openAccess>>;
