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

/** A list item that is a host with a port (`push.local:8443`, `[::1]:8443`). */
const HOST_PORT = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/;

/** `host:port` as a hosts list keeps it: an IPv6 literal in brackets. */
const hostPort = (host: string, port: string | number) => `${host.includes(":") ? `[${host}]` : host}:${Number(port)}`;

/** A comma list of hosts, each alone (any port) or with a port (that port only): PARLEY_PUSH_HOSTS. */
export function parseHostPortList(text: string): string[] {
  return commaList(text).map((item) => {
    const m = HOST_PORT.exec(item);
    return m ? hostPort(normalHost(m[1] ?? m[2]!), m[3]!) : normalHost(item);
  });
}

/** Whether a list of hosts (some with a port) names the URL's host, alone or with the URL's port. */
export function hostListed(url: string, hosts: readonly string[]): boolean {
  const target = new URL(url);
  const host = normalHost(target.hostname);
  return hosts.includes(host) || hosts.includes(hostPort(host, target.port || (target.protocol === "https:" ? 443 : 80)));
}

/** The hosts of a list (some with a port) without their ports: the connection's address check knows none. */
export const hostsOnly = (hosts: readonly string[]): string[] =>
  hosts.map((h) => {
    const m = HOST_PORT.exec(h);
    return m ? normalHost(m[1] ?? m[2]!) : h;
  });

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
