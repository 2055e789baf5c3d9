import type { IncomingMessage, ServerResponse } from "node:http";
import { matchRoute, type ApiRoute } from "../../protocol/routes";
import { AppError } from "../../protocol/errors";
import { log } from "../log";
import type { DirectHandler, RouteReply } from "./json-route";
import { fromIncomingMessage } from "./route-request";
import type { Principal } from "../access/authenticator";

type Method = ApiRoute["methods"][number];
/** A route file's exports as the direct path calls them: each method's JSON route (json-route.ts). */
export type RouteModule = Partial<Record<Method, { direct: DirectHandler }>>;

/**
 * Serves the given route modules straight from the HTTP server, after the gate and without
 * Next's request pipeline (about half the server's time per request on the question loop's
 * routes: measured, docs/benchmarks.md), nor a WHATWG Request and Response for each request.
 * The handlers are the same exports Next serves; any route or method not listed here still goes
 * to Next. Answers whether it handled the request.
 */
export function createDirectRoutes(modules: Readonly<Record<string, RouteModule>>) {
  /** `principal`: who the gate signed in, handed to the route as its caller. */
  return async function direct(req: IncomingMessage, res: ServerResponse, principal: Principal | null): Promise<boolean> {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const pathname = query < 0 ? url : url.slice(0, query);
    if (!pathname.startsWith("/api/")) return false;
    let matched: ReturnType<typeof matchRoute>;
    try {
      matched = matchRoute(pathname);
    } catch {
      return false;
    }
    const handler = matched && modules[matched.route.path]?.[req.method as Method];
    if (!matched || !handler) return false;
    try {
      // The params of the path this module is listed under, which are the ones its handler names.
      await send(await handler.direct(fromIncomingMessage(req, res, principal), matched.params), res);
    } catch (err) {
      // The handlers answer their own errors (jsonRoute): this is a request that broke off, or a bug.
      if (!req.destroyed) log.error({ err }, `[http] ${req.method} ${pathname} failed`);
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { error: AppError.from(err).toWire() });
    }
    return true;
  };
}

async function send(reply: RouteReply, res: ServerResponse): Promise<void> {
  if (!(reply instanceof Response)) return sendJson(res, reply.status, reply.data);
  const body = Buffer.from(await reply.arrayBuffer());
  res.statusCode = reply.status;
  for (const [name, value] of reply.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = reply.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  res.setHeader("content-length", body.byteLength);
  res.end(body);
}

/** As Response.json writes it. */
function sendJson(res: ServerResponse, status: number, data: unknown): void {
  const body = JSON.stringify(data);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}
