import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { LOCAL_OWNER, TOKEN_PARAM } from "../../protocol/access";
import { SIGN_IN_LINK_PARAM } from "../../protocol/teams";
import { clip } from "../../protocol/bounded-text";
import { AppError, type WireError } from "../../protocol/errors";
import { MCP_PATH } from "../../protocol/mcp";
import { matchRoute } from "../../protocol/routes";
import type { Access } from "../access/access";
import { bearerOf, type Principal } from "../access/authenticator";
import { clientAddress, isHttps } from "../access/client-address";
import type { OriginPolicy } from "../access/origin-policy";
import { settleForwardedHeaders, type GatedClient } from "./forwarded-headers";
import { API_CSP, newNonce, pageCsp, setBaseSecurityHeaders } from "./security-headers";
import { clearSessionCookie, sessionCookie } from "./session-cookie-header";
import { log } from "../log";

// The installable app's files are public: a browser fetches the manifest, icons and service worker without the session cookie, and the offline page must load while signed out.
const PUBLIC_PAGES = new Set(["/sign-in", "/icon.svg", "/favicon.ico", "/robots.txt", "/manifest.webmanifest", "/sw.js", "/offline.html", "/apple-icon.png"]);
// An email's answer page: its link is its credential (lib/server/email/answer-link.ts).
const isPublicPage = (pathname: string) => pathname.startsWith("/_next/") || pathname.startsWith("/icons/") || pathname.startsWith("/answer/") || PUBLIC_PAGES.has(pathname);
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** `/mcp` and every other spelling of it (`/mcp/`, `/mcp;x=1`, `/mcp/x`): the gate's typed answers, not a page. */
const isMcpSpelling = (path: string) => path === MCP_PATH || path.startsWith(`${MCP_PATH}/`) || path.startsWith(`${MCP_PATH};`);

const askScopeRefusal = () => new AppError("forbidden", "This API token may only ask (scope ask): POST /api/asks, /mcp, and reading the questions it asked. Use a full token for anything else.");

/** What the gate did: answered the request itself, or let it through as the principal it signed in (null: nobody, on a public path). */
export type Gated = { answered: true } | { answered: false; principal: Principal | null };
const ANSWERED: Gated = { answered: true };
const through = (principal: Principal | null): Gated => ({ answered: false, principal });

export interface GateOptions {
  access: Access;
  origins: OriginPolicy;
  dev: boolean;
}

function sendError(res: ServerResponse, error: WireError, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify({ error }));
}

function redirect(res: ServerResponse, location: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(303, { location, "cache-control": "no-store", ...headers });
  res.end();
}

const isJson = (contentType: string | undefined) => /^application\/json\s*(;|$)/i.test(contentType ?? "");
const hasBody = (req: IncomingMessage) => Number(req.headers["content-length"] ?? "0") > 0 || req.headers["transfer-encoding"] !== undefined;

/**
 * Every HTTP request passes here before Next: the Host check (DNS rebinding), path decoding,
 * 404/405 for API routes, the credential (401), Origin and content type on writes (403/415),
 * rate limits (429), security headers and the page's CSP nonce. Says whether it answered, else
 * who the route or page serves (servedAs, request-principal.ts).
 * Socket.IO's requests never reach it (Engine.IO answers them first); realtime has its own checks.
 */
export function createGate({ access, origins, dev }: GateOptions) {
  const { authenticator, rateLimits, proxyTrust, browserSessions } = access;

  async function principalOf(req: IncomingMessage, client: GatedClient): Promise<Principal | null> {
    return authenticator.authenticate({ bearer: bearerOf(req.headers.authorization), cookie: req.headers.cookie, client: client.address });
  }

  async function api(req: IncomingMessage, res: ServerResponse, pathname: string, client: GatedClient): Promise<Gated> {
    res.setHeader("Content-Security-Policy", API_CSP);
    // no-transform: API answers are small JSON; gzipping each one cost more CPU than the bytes it saved (measured).
    res.setHeader("Cache-Control", "no-store, no-transform");
    const method = req.method ?? "GET";
    // One spelling per route: an empty segment or a trailing slash is no route (Next would redirect it).
    const matched = /\/\/|.\/$/.test(pathname) ? undefined : matchRoute(pathname);
    if (!matched) {
      sendError(res, { code: "not_found:route", message: `No API route ${method} ${clip(pathname, 200)}.` }, 404);
      return ANSWERED;
    }
    const { route } = matched;
    const allow = [...route.methods, ...(route.methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
    if (method === "OPTIONS") {
      res.writeHead(204, { allow });
      res.end();
      return ANSWERED;
    }
    if (!route.methods.includes(method as never) && !(method === "HEAD" && route.methods.includes("GET"))) {
      sendError(res, { code: "method_not_allowed", message: `${clip(pathname, 200)} answers ${route.methods.join(", ")}, not ${method}.` }, 405, { allow });
      return ANSWERED;
    }
    const write = WRITE_METHODS.has(method);
    if (write) {
      const origin = req.headers.origin;
      if ((origin !== undefined && !origins.originAllowed(origin)) || req.headers["sec-fetch-site"] === "cross-site") {
        throw new AppError("forbidden_origin", "Requests from another site may not change anything here.");
      }
      if (hasBody(req) && !route.signed && !isJson(req.headers["content-type"])) {
        throw new AppError("unsupported_media_type", "Send the request body as JSON (Content-Type: application/json).");
      }
    }
    const principal = await principalOf(req, client);
    if (!principal && !route.public) {
      const error = new AppError("unauthorized", "Sign in first: open the URL the server printed at start, or send Authorization: Bearer <token>.");
      sendError(res, error.toWire(), 401, { "www-authenticate": 'Bearer realm="parley"' });
      return ANSWERED;
    }
    if (principal?.scope === "ask" && !route.asks) throw askScopeRefusal();
    if (write && route.limit) await rateLimits.take(route.limit, route.limit === "signIn" || !principal ? client.address : principal.credential);
    return through(principal);
  }

  /** `/?token=…` (the URL printed at start): the token becomes the session cookie, and the URL loses it. */
  async function exchangeToken(req: IncomingMessage, res: ServerResponse, url: URL, client: GatedClient): Promise<boolean> {
    const token = url.searchParams.get(TOKEN_PARAM);
    if (token === null) return false;
    url.searchParams.delete(TOKEN_PARAM);
    // One leading slash: `/.//evil.example/` parses to the path `//evil.example/`, which as a Location leaves the site.
    const next = `/${url.pathname.replace(/^\/+/, "")}${url.search}`;
    await rateLimits.take("signIn", client.address);
    if (!authenticator.isServerToken(token)) {
      // Already signed in: an old link's token changes nothing, so it only leaves the address bar.
      if (await principalOf(req, client)) redirect(res, next);
      else redirect(res, `/sign-in?error=invalid_token&next=${encodeURIComponent(next)}`);
      return true;
    }
    redirect(res, next, { "set-cookie": sessionCookie(browserSessions.cookieName, await browserSessions.issue(LOCAL_OWNER), { secure: client.https }) });
    return true;
  }

  /**
   * `/?signin=sil_…` (a person's one-time link): to the sign-in page, which spends it with a POST.
   * Never spent by this GET: a chat app's or a mail scanner's preview of the link would use it up.
   */
  function toSignInPage(res: ServerResponse, url: URL): boolean {
    const link = url.searchParams.get(SIGN_IN_LINK_PARAM);
    if (link === null) return false;
    url.searchParams.delete(SIGN_IN_LINK_PARAM);
    const next = `/${url.pathname.replace(/^\/+/, "")}${url.search}`;
    redirect(res, `/sign-in?${new URLSearchParams({ [SIGN_IN_LINK_PARAM]: link, next })}`);
    return true;
  }

  async function page(req: IncomingMessage, res: ServerResponse, url: URL, client: GatedClient): Promise<Gated> {
    const pathname = url.pathname;
    if (isPublicPage(pathname)) {
      if (!pathname.startsWith("/_next/")) withNonce(req, res);
      return through(null);
    }
    if (toSignInPage(res, url)) return ANSWERED;
    if (await exchangeToken(req, res, url, client)) return ANSWERED;
    const principal = await principalOf(req, client);
    if (!principal) {
      // A stale cookie (another server's, past its age, issued for another token or before a sign-out everywhere) is cleared on the way to the sign-in page.
      const stale: Record<string, string> = req.headers.cookie?.includes(`${browserSessions.cookieName}=`) ? { "set-cookie": clearSessionCookie(browserSessions.cookieName) } : {};
      redirect(res, `/sign-in?next=${encodeURIComponent(`${pathname}${url.search}`)}`, stale);
      return ANSWERED;
    }
    if (principal.scope === "ask") throw askScopeRefusal();
    withNonce(req, res);
    return through(principal);
  }

  function withNonce(req: IncomingMessage, res: ServerResponse): void {
    const csp = pageCsp(newNonce(), { dev });
    // Next reads the nonce from the request's policy and puts it on every script it renders.
    req.headers["content-security-policy"] = csp;
    res.setHeader("Content-Security-Policy", csp);
  }

  return async function gate(req: IncomingMessage, res: ServerResponse): Promise<Gated> {
    setBaseSecurityHeaders(res);
    try {
      if (!origins.hostAllowed(req.headers.host)) {
        throw new AppError("forbidden_host", `This server does not answer to the host name "${String(req.headers.host ?? "").slice(0, 100)}". Add its origin to PARLEY_ALLOWED_ORIGINS to allow it.`);
      }
      // The client a rate limit counts by before it has a credential: its address, through trusted proxies only.
      const client: GatedClient = { address: clientAddress(req, proxyTrust), https: isHttps(req, proxyTrust) };
      settleForwardedHeaders(req, client, proxyTrust);
      const target = req.url ?? "/";
      // Only a path (origin form): the asterisk form crashed Next, the absolute form names a host of its own.
      if (!target.startsWith("/")) throw new AppError("bad_request", "The request target must be a path, such as /api/sessions.");
      let url: URL;
      let path: string;
      try {
        url = new URL(target, "http://parley.invalid");
        // The path as sent, joined rather than resolved: in "//api/x", "api" is a segment, not a host.
        path = new URL(`http://parley.invalid${target}`).pathname;
        decodeURIComponent(path);
      } catch {
        throw new AppError("bad_request", "The request path is not valid (malformed percent-encoding).");
      }
      const collapsed = path.replace(/\/{2,}/g, "/");
      if (collapsed.startsWith("/api/") || collapsed === "/api" || isMcpSpelling(collapsed)) return await api(req, res, path, client);
      return await page(req, res, url, client);
    } catch (err) {
      const error = AppError.from(err);
      if (error.code === "internal") log.error({ err }, `[http] ${req.method} ${req.url} failed in the gate`);
      const retry = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      sendError(res, error.toWire(), error.status, retry ? { "retry-after": String(retry) } : {});
      return ANSWERED;
    }
  };
}

/**
 * Requests Node's HTTP parser refuses never reach the gate: an unknown method, a request line and
 * headers above its 16 KiB limit, broken framing. They get the typed JSON error every other bad
 * request gets (Node's own answer is an empty 400 or 431), then the connection closes.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    socket.end("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    return;
  }
  const message = err.code === "HPE_HEADER_OVERFLOW" ? "The request line and headers are larger than this server reads (16 KiB)." : "The request is not valid HTTP.";
  const body = JSON.stringify({ error: { code: "bad_request", message } satisfies WireError });
  // An answer to HEAD has no body (a client would read it as the start of the next answer).
  const head = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString("latin1") === "HEAD ";
  socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? "" : body}`);
}
