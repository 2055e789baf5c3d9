import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";

/** Headers every response carries. */
export function setBaseSecurityHeaders(res: ServerResponse): void {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
}

/** For JSON and other non-page responses: nothing may run, nothing may frame it. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * A page's policy: only scripts carrying this response's nonce (Next puts it on its own scripts
 * when the request carries the policy) and what they load; no inline scripts, no framing.
 * Development adds what React's dev build and hot reload need.
 */
export function pageCsp(nonce: string, { dev }: { dev: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export const newNonce = (): string => randomBytes(16).toString("base64");
