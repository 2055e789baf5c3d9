import { LOCAL_OWNER, type WhoAmI } from "../../protocol/access";
import type { ApiTokens } from "./api-tokens";
import { sameSecret } from "./secrets";
import type { BrowserSessions } from "./browser-sessions";
import type { RateLimits } from "./rate-limits";

/** Who a request speaks for, and which credential (the rate limits count per credential). */
export interface Principal extends WhoAmI {
  credential: string;
  /** The API token's id, for a principal that signed in with one. */
  apiTokenId?: string;
  /** `ask` for an API token that may only ask and read its own asks; absent: everything its owner may. */
  scope?: "ask";
}

export interface Credentials {
  /** A bearer token, from `Authorization: Bearer` or a socket's `auth.token`. */
  bearer?: string | null;
  /** The raw Cookie header. */
  cookie?: string | null;
  /**
   * The client's address (through trusted proxies only): a bearer token from it is limited by its
   * failures (`badTokens`). Absent only for a check the server makes itself of a credential it holds.
   */
  client?: string;
}

interface AuthenticatorDeps {
  serverToken: () => string;
  apiTokens: ApiTokens;
  browserSessions: BrowserSessions;
  rateLimits: RateLimits;
}

/** Reads one cookie from a Cookie header. */
export function cookieValue(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function bearerOf(authorization: string | null | undefined): string | null {
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return match ? match[1]! : null;
}

/** Checks a credential: the server token (the person who started the server), an API token, or a signed session cookie. */
export function createAuthenticator({ serverToken, apiTokens, browserSessions, rateLimits }: AuthenticatorDeps) {
  const isPrincipal = (principal: Principal | null) => principal !== null;

  async function bearerPrincipal(bearer: string): Promise<Principal | null> {
    if (sameSecret(bearer, serverToken())) return { ownerId: LOCAL_OWNER, via: "server_token", credential: "server" };
    const api = await apiTokens.verify(bearer);
    return api ? { ownerId: api.ownerId, via: "api_token", credential: `api:${api.id}`, apiTokenId: api.id, ...(api.scope === "ask" && { scope: "ask" as const }) } : null;
  }

  return {
    /** The server token, as typed on the sign-in page or carried in the start URL. */
    isServerToken: (token: string) => sameSecret(token, serverToken()),

    /** The principal of a credential, null for none or a wrong one; `rate_limited` for a client whose wrong bearer tokens reached the limit. */
    async authenticate({ bearer, cookie, client }: Credentials): Promise<Principal | null> {
      if (bearer) {
        if (client === undefined) return bearerPrincipal(bearer);
        return rateLimits.failuresOnly("badTokens", client, () => bearerPrincipal(bearer), isPrincipal);
      }
      const session = await browserSessions.verify(cookieValue(cookie, browserSessions.cookieName));
      return session ? { ownerId: session.ownerId, via: "cookie", credential: `cookie:${session.issuedAt}` } : null;
    },
  };
}
