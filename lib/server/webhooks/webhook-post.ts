import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";

/** How long one attempt may take, from connecting to the receiver's status line. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** What one attempt came to: taken (a 2xx), or why not, in a few words for the audit. */
export type PostOutcome = { ok: true; status: number } | { ok: false; error: string };

/**
 * POSTs one webhook. A redirect is a failure, never followed (it could lead anywhere, past the
 * allowed hosts); only the status line is waited for, and the body the receiver sends is dropped.
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  { timeoutMs = WEBHOOK_TIMEOUT_MS, signal, lookup }: { timeoutMs?: number; signal?: AbortSignal; lookup?: LookupFunction } = {},
): Promise<PostOutcome> {
  const target = new URL(url);
  const request = target.protocol === "https:" ? https.request : http.request;
  const timeout = AbortSignal.timeout(timeoutMs);
  return new Promise((resolve) => {
    const req = request(target, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "Parley-Webhooks" },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      lookup,
      // A connection of its own each time: every attempt's addresses go through `lookup`.
      agent: false,
    });
    req.on("response", (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) resolve({ ok: true, status });
      else if (status >= 300 && status < 400) resolve({ ok: false, error: `HTTP ${status}: redirects are not followed` });
      else resolve({ ok: false, error: `HTTP ${status}` });
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (timeout.aborted) resolve({ ok: false, error: `no answer within ${timeoutMs} ms` });
      else if (signal?.aborted) resolve({ ok: false, error: "the server stopped during the attempt" });
      else resolve({ ok: false, error: err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message });
    });
    req.end(body);
  });
}
