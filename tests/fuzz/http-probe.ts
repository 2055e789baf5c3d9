import http from "node:http";
import { ERROR_STATUS, ErrorCodeSchema } from "../../lib/protocol/errors";
import { OWN_PROTOCOL_ROUTES } from "./route-specs";

/**
 * One HTTP request as the fuzz suite sends it (node:http, so the method, the raw path and every
 * header are exactly what was generated), and the checks every answer must pass.
 */

export interface ProbeRequest {
  method: string;
  /** The raw request target, sent as is. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Send the body chunked (Transfer-Encoding), without a Content-Length. */
  chunked?: boolean;
}

export interface ProbeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  ms: number;
}

/** No answer within this is a hang. */
export const ANSWER_WITHIN_MS = Number(process.env.FUZZ_ANSWER_MS ?? 5_000);
/** An error body above this is not bounded (messages built from input are cut to about 1,000 characters). */
export const MAX_ERROR_BODY_CHARS = 4_096;

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export function send(base: string, req: ProbeRequest, timeoutMs = ANSWER_WITHIN_MS): Promise<ProbeResponse> {
  const url = new URL(base);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined && !req.chunked) headers["content-length"] = req.body.length;
    // Node's client sends DELETE (like GET) without chunked framing unless told: the body would then
    // reach the server as a second, invalid request after a bodyless DELETE that the server applies.
    if (req.chunked) headers["transfer-encoding"] = "chunked";
    const r = http.request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent }, (res) => {
      if (res.headers["content-type"]?.startsWith("text/event-stream")) {
        // An event stream's answer is its first event: the stream itself stays open until what it follows happens.
        res.once("data", (c: Buffer) => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: c.toString("utf8"), ms: Date.now() - started });
          res.destroy();
        });
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: "", ms: Date.now() - started });
        });
        return;
      }
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8"), ms: Date.now() - started });
      });
      res.on("error", fail);
    });
    const timer = setTimeout(() => {
      r.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms (a hang): ${req.method} ${req.path.slice(0, 200)}`));
    }, timeoutMs);
    function fail(err: Error) {
      clearTimeout(timer);
      reject(new Error(`${req.method} ${req.path.slice(0, 200)}: ${err.message}`));
    }
    r.on("error", fail);
    if (req.chunked) {
      // At least one chunk's header goes out, so even an empty body is sent chunked.
      r.flushHeaders();
      for (let at = 0; at < (req.body?.length ?? 0); at += 65_536) r.write(req.body!.subarray(at, at + 65_536));
      r.end();
    } else r.end(req.body);
  });
}

export class ResponseProblem extends Error {}

/** Node's parser reads at most this much of a request's line and headers; above it the app never sees the request. */
export const MAX_HEAD_BYTES = 16 * 1024;

/** About the size of a request's line and headers as sent (the client adds Host and Connection). */
export function headBytes(req: ProbeRequest): number {
  const line = `${req.method} ${req.path} HTTP/1.1\r\n`;
  const headers = Object.entries(req.headers ?? {}).reduce((n, [k, v]) => n + Buffer.byteLength(`${k}: ${v}\r\n`), 0);
  return Buffer.byteLength(line) + headers + 64;
}

/**
 * Never a 5xx; a non-2xx answer (but a HEAD's) is `{ error: { code, message } }` with a known code
 * whose status it is, a bounded message, and JSON's content type. Returns the error code, if any.
 */
/** MCP's answers past the gate are JSON-RPC errors (the SDK's): `{ jsonrpc: "2.0", error: { code: number, message } }`. */
const isJsonRpcError = (body: unknown) => {
  const b = body as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  return b?.jsonrpc === "2.0" && typeof b.error?.code === "number" && typeof b.error.message === "string";
};

function ownProtocolPath(target: string): boolean {
  try {
    const pathname = decodeURIComponent(new URL(target, "http://fuzz.invalid").pathname).replace(/\/{2,}/g, "/");
    return OWN_PROTOCOL_ROUTES.has(pathname);
  } catch {
    return false;
  }
}

export function checkAnswer(req: ProbeRequest, res: ProbeResponse): string | null {
  const what = () => `${req.method} ${req.path.slice(0, 120)} → ${res.status} ${res.text.slice(0, 300)}`;
  if (res.status >= 500 || res.status < 100) throw new ResponseProblem(`server error: ${what()}`);
  if (res.status < 300) return null;
  if (req.method === "HEAD") return null;
  if (res.status < 400) throw new ResponseProblem(`unexpected ${res.status}: ${what()}`);
  if (!/^application\/json/i.test(String(res.headers["content-type"] ?? ""))) throw new ResponseProblem(`not JSON (content-type ${String(res.headers["content-type"])}): ${what()}`);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new ResponseProblem(`body is not JSON: ${what()}`);
  }
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (isJsonRpcError(body) && res.status < 500 && ownProtocolPath(req.path)) return "json-rpc";
  const code = ErrorCodeSchema.safeParse(error?.code);
  if (!code.success || typeof error?.message !== "string") throw new ResponseProblem(`not a typed error: ${what()}`);
  if (ERROR_STATUS[code.data] !== res.status) throw new ResponseProblem(`code ${code.data} belongs to ${ERROR_STATUS[code.data]}, answered ${res.status}: ${what()}`);
  if (res.text.length > MAX_ERROR_BODY_CHARS) throw new ResponseProblem(`error body of ${res.text.length} characters: ${what()}`);
  if (res.status === 405 && !res.headers.allow) throw new ResponseProblem(`405 without Allow: ${what()}`);
  return code.data;
}
