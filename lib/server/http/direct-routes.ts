import type { IncomingMessage, ServerResponse } from "node:http";
import { MAX_BODY_BYTES } from "../../protocol/rest";
import { matchRoute, type ApiRoute } from "../../protocol/routes";
import { AppError } from "../../protocol/errors";
import { log } from "../log";

type Method = ApiRoute["methods"][number];
/** An App Router route handler, as `app/api/…/route.ts` exports it (its params typed by its own path: `never` accepts every such handler). */
export type RouteHandler = (req: Request, ctx: { params: Promise<never> }) => Promise<Response>;
export type RouteModule = Partial<Record<Method, RouteHandler>>;

/**
 * Serves the given route modules straight from the HTTP server, after the gate and without
 * Next's request pipeline (about half the server's time per request on the question loop's
 * routes: measured, docs/benchmarks.md). The handlers are the same exports Next serves; any
 * route or method not listed here still goes to Next. Answers whether it handled the request.
 */
export function createDirectRoutes(modules: Readonly<Record<string, RouteModule>>) {
  return async function direct(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
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
      // As under Next: the request's signal aborts when the client goes before its answer.
      const gone = new AbortController();
      res.once("close", () => !res.writableFinished && gone.abort());
      const request = new Request(`http://${req.headers.host ?? "localhost"}${url}`, {
        method: req.method,
        headers: headersOf(req),
        signal: gone.signal,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(await bodyOf(req)),
      });
      // The params of the path this module is listed under, which are the ones its handler names.
      const response = await handler(request, { params: Promise.resolve(matched.params) as Promise<never> });
      await send(response, res);
    } catch (err) {
      // The handlers answer their own errors (jsonRoute): this is a request that broke off, or a bug.
      if (!req.destroyed) log.error({ err }, `[http] ${req.method} ${pathname} failed`);
      if (res.headersSent) res.destroy();
      else {
        res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify({ error: AppError.from(err).toWire() }));
      }
    }
    return true;
  };
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return headers;
}

/** The request body, read up to one byte past the limit (the rest is drained unread): the route's own check answers 413 (readJson). */
function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks));
    };
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) finish();
    });
    req.once("end", finish);
    req.once("error", reject);
  });
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  res.setHeader("content-length", body.byteLength);
  res.end(body);
}
