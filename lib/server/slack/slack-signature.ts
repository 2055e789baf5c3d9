import { createHmac, timingSafeEqual } from "node:crypto";
import { SLACK_SIGNATURE_WINDOW_SECONDS } from "../../protocol/slack";

/**
 * Whether a request came from Slack, as Slack specifies: `X-Slack-Signature` is `v0=` and the hex
 * HMAC-SHA256 of `v0:{X-Slack-Request-Timestamp}:{raw body}` under the app's signing secret,
 * compared in constant time, and the timestamp is within five minutes of now (a replayed request
 * is refused). The body must be the bytes as sent, before any parsing.
 */
export function slackRequestVerified({
  secret,
  signature,
  timestamp,
  body,
  nowSeconds = Math.floor(Date.now() / 1000),
}: {
  secret: string;
  signature: string | null;
  timestamp: string | null;
  body: string;
  nowSeconds?: number;
}): boolean {
  if (!signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > SLACK_SIGNATURE_WINDOW_SECONDS) return false;
  const expected = Buffer.from(slackSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The signature Slack sends with a body at a time (what a test's stand-in signs with, too). */
export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}
