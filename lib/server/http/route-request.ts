import type { Principal } from "../access/authenticator";
import { requestPrincipal } from "./request-principal";
import type { IncomingMessage, ServerResponse } from "node:http";
import { MAX_BODY_BYTES } from "../../protocol/rest";

/**
 * What a JSON route reads of its request, one shape for both ways a request reaches it: Next's
 * WHATWG `Request` (fromFetchRequest) and the direct path's IncomingMessage (fromIncomingMessage),
 * which builds no `Request`, headers copy, body stream or abort signal unless a handler asks.
 */
export interface RouteRequest {
  /** Who the gate signed in (null: nobody, on a public route). */
  readonly principal: Principal | null;
  readonly method: string;
  /** The absolute URL. */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  /** Aborts when the client goes before its answer. */
  readonly signal: AbortSignal;
  /** The body as UTF-8 text, or null when it is larger than `limit` bytes (the rest is left unread). */
  bodyText(limit: number): Promise<string | null>;
  /** The request as a WHATWG `Request`, for a handler that hands it on whole (MCP). */
  fetchRequest(): Promise<Request>;
}

export function fromFetchRequest(req: Request): RouteRequest {
  return {
    // Next served it: the gate's principal came along the request's async context.
    principal: requestPrincipal(),
    method: req.method,
    url: req.url,
    headers: req.headers,
    signal: req.signal,
    bodyText: (limit) => readStream(req, limit),
    fetchRequest: async () => req,
  };
}

async function readStream(req: Request, limit: number): Promise<string | null> {
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A request the HTTP server took, answered on `res`: its signal aborts when `res` closes before it finished. */
export function fromIncomingMessage(req: IncomingMessage, res: ServerResponse, principal: Principal | null): RouteRequest {
  const url = `http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`;
  let signal: AbortSignal | undefined;
  let body: Promise<Buffer> | undefined;
  const readBody = (limit: number) => (body ??= readIncoming(req, limit));
  return {
    principal,
    method: req.method ?? "GET",
    url,
    headers: { get: (name) => headerOf(req, name) },
    get signal() {
      return (signal ??= goneSignal(res));
    },
    bodyText: async (limit) => {
      const bytes = await readBody(limit);
      return bytes.byteLength > limit ? null : bytes.toString("utf8");
    },
    fetchRequest: async () =>
      new Request(url, {
        method: req.method,
        headers: headersOf(req),
        signal: (signal ??= goneSignal(res)),
        body: req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(await readBody(MAX_BODY_BYTES)),
      }),
  };
}

function goneSignal(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  if (res.closed) {
    if (!res.writableFinished) gone.abort();
  } else res.once("close", () => !res.writableFinished && gone.abort());
  return gone.signal;
}

function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
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

/** The body, read up to one chunk past `limit` (the rest is left unread): the caller sees it is too large. */
function readIncoming(req: IncomingMessage, limit: number): Promise<Buffer> {
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
      if (size > limit) finish();
    });
    req.once("end", finish);
    req.once("error", reject);
  });
}
