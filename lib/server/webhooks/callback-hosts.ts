import { AppError } from "../../protocol/errors";
import { commaList } from "../../protocol/comma-list";

/** Loopback only: a callback reaches nothing else unless the operator says so (no SSRF by default). */
export const DEFAULT_WEBHOOK_HOSTS = ["localhost", "127.0.0.1", "::1"] as const;

/** A host as URL parsing gives it, compared case-insensitively and without an IPv6 literal's brackets. */
const normalHost = (host: string): string =>
  host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");

/** PARLEY_WEBHOOK_HOSTS: a comma list of host names or IP addresses, each allowed exactly (no wildcards, no ports). */
export function parseWebhookHosts(text: string): string[] {
  return commaList(text).map(normalHost);
}

/** The host a callback URL names, as PARLEY_WEBHOOK_HOSTS lists it. */
export const callbackHostOf = (url: string): string => normalHost(new URL(url).hostname);

export function callbackAllowed(url: string, hosts: readonly string[]): boolean {
  return hosts.includes(callbackHostOf(url));
}

/** Refuses a callbackUrl whose host the server does not allow, naming the setting that would. */
export function checkCallbackUrl(url: string, hosts: readonly string[]): void {
  if (callbackAllowed(url, hosts)) return;
  const host = callbackHostOf(url);
  throw new AppError(
    "callback_not_allowed",
    `The callbackUrl's host "${host}" is not allowed: the server posts webhooks only to the hosts PARLEY_WEBHOOK_HOSTS lists (now: ${hosts.join(", ") || "none"}).`,
  );
}
