import { createHash } from "node:crypto";
import { API_TOKEN_PATTERN, LOCAL_OWNER, type WhoAmI } from "../../protocol/access";
import type { ApiTokens } from "./api-tokens";
import { sameSecret } from "./secrets";
import type { BrowserSessions } from "./browser-sessions";
import type { PeopleCache } from "./people-cache";
import type { RateLimits } from "./rate-limits";

/**
 * How much older than its person a cookie may be and still be theirs: the node that issued it and
 * the one that added the person read different clocks. Older than that, it is of someone of the
 * same name who was removed before this person was added.
 */
export const CLOCK_SKEW_MS = 5_000;

/** How many right bearer tokens a node remembers as right, and for how long since last used. */
const TRUSTED_MAX = 10_000;
const TRUSTED_MS = 24 * 3_600_000;

/**
 * What a wrong bearer token counts against, beside the client's address: the API token it names
 * (`pat_<id>_…`), or every other token together (the server token, anything else). So guesses at
 * one token do not lock another credential of the same address (a proxy) out.
 */
export function badTokenKey(client: string, bearer: string): string {
  const api = API_TOKEN_PATTERN.exec(bearer);
  return `${client}|${api ? `api:${api[1]}` : "other"}`;
}

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
  people: Pick<PeopleCache, "get">;
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

/**
 * Checks a credential: the server token (the administrator, who started the server), an API token,
 * or a signed session cookie. A cookie or API token speaks for its owner only while that person
 * exists (the administrator `local` always does).
 */
export function createAuthenticator({ serverToken, apiTokens, browserSessions, rateLimits, people }: AuthenticatorDeps) {
  const isPrincipal = (principal: Principal | null) => principal !== null;
  /**
   * Bearer tokens (their digests) that were right when last used here: one of them is checked even
   * while its client's wrong tokens are over the limit (a right token first tried then is refused,
   * or its answer would tell a right guess from a wrong one).
   */
  const trusted = new Map<string, number>();
  const digestOf = (bearer: string) => createHash("sha256").update(bearer).digest("base64url");
  function isTrusted(digest: string): boolean {
    const at = trusted.get(digest);
    if (at === undefined) return false;
    if (Date.now() - at <= TRUSTED_MS) return true;
    trusted.delete(digest);
    return false;
  }
  function remember(digest: string, right: boolean): void {
    trusted.delete(digest);
    if (!right) return;
    trusted.set(digest, Date.now());
    if (trusted.size > TRUSTED_MAX) trusted.delete(trusted.keys().next().value!);
  }

  /**
   * Whether the owner of a credential is an administrator; null when no such person exists (any
   * more). A cookie issued at `issuedAt` (ms) before the person was added was someone else's of
   * that name. API tokens are not dated so: a removal revokes them, and a token an older version
   * made for a name (`--owner`) works again once a person of that name is added.
   */
  async function adminOf(ownerId: string, issuedAt?: number): Promise<boolean | null> {
    if (ownerId === LOCAL_OWNER) return true;
    const person = await people.get(ownerId);
    if (!person || (issuedAt !== undefined && issuedAt < person.createdAt - CLOCK_SKEW_MS)) return null;
    return person.admin;
  }

  async function bearerPrincipal(bearer: string): Promise<Principal | null> {
    if (sameSecret(bearer, serverToken())) return { ownerId: LOCAL_OWNER, via: "server_token", credential: "server", admin: true };
    const api = await apiTokens.verify(bearer);
    if (!api) return null;
    const admin = await adminOf(api.ownerId);
    if (admin === null) return null;
    // A token that may only ask is no administrator's, whoever made it.
    if (api.scope === "ask") return { ownerId: api.ownerId, via: "api_token", credential: `api:${api.id}`, apiTokenId: api.id, admin: false, scope: "ask" };
    return { ownerId: api.ownerId, via: "api_token", credential: `api:${api.id}`, apiTokenId: api.id, admin };
  }

  return {
    /** The server token, as typed on the sign-in page or carried in the start URL. */
    isServerToken: (token: string) => sameSecret(token, serverToken()),

    /** The principal of a credential, null for none or a wrong one; `rate_limited` for a client whose wrong bearer tokens reached the limit. */
    async authenticate({ bearer, cookie, client }: Credentials): Promise<Principal | null> {
      if (bearer) {
        if (client === undefined) return bearerPrincipal(bearer);
        const digest = digestOf(bearer);
        const principal = await rateLimits.failuresOnly("badTokens", badTokenKey(client, bearer), () => bearerPrincipal(bearer), isPrincipal, { trusted: isTrusted(digest) });
        remember(digest, principal !== null);
        return principal;
      }
      const session = await browserSessions.verify(cookieValue(cookie, browserSessions.cookieName));
      const admin = session && (await adminOf(session.ownerId, session.issuedAt));
      return session && admin !== null ? { ownerId: session.ownerId, via: "cookie", credential: `cookie:${session.issuedAt}`, admin } : null;
    },
  };
}
export type Authenticator = ReturnType<typeof createAuthenticator>;
