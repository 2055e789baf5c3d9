import type { IncomingMessage } from "node:http";
import proxyAddr from "proxy-addr";
import { commaList } from "../../protocol/comma-list";

/**
 * Whether the hop at `address`, `hop` steps in front of this server (0: the socket's peer), is a
 * proxy whose X-Forwarded-For and X-Forwarded-Proto are believed (proxy-addr's trust function).
 */
export type ProxyTrust = (address: string, hop: number) => boolean;

/** No proxy is trusted: the socket's peer is the client, and X-Forwarded-* headers mean nothing. */
export const TRUST_NO_PROXY: ProxyTrust = () => false;

const TRUST_ALL: ProxyTrust = () => true;
const MAX_HOPS = 100;
/** An IPv6 address with a zone is under 64 characters; anything longer a header made up. */
const MAX_ADDRESS_CHARS = 100;

/**
 * PARLEY_TRUST_PROXY, read as Express reads `trust proxy`: `true` (every hop), `false` or unset
 * (none), a hop count (that many proxies in front of the server), or a comma-separated list of
 * addresses, subnets (`10.0.0.0/8`, `fd00::/8`, `10.0.0.0/255.0.0.0`) and the names `loopback`,
 * `linklocal` and `uniquelocal`. Throws an Error that says what it takes.
 */
export function parseProxyTrust(setting: string | undefined): ProxyTrust {
  const value = (setting ?? "").trim();
  if (value === "" || /^false$/i.test(value)) return TRUST_NO_PROXY;
  if (/^true$/i.test(value)) return TRUST_ALL;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_HOPS) throw new Error(`a hop count is at most ${MAX_HOPS}, not ${value}`);
    return hops === 0 ? TRUST_NO_PROXY : (_address, hop) => hop < hops;
  }
  const entries = commaList(value);
  if (entries.length === 0) return TRUST_NO_PROXY;
  for (const entry of entries) {
    // proxy-addr reads a bare number as an address; here a number means a hop count, alone.
    if (/^(true|false|\d+)$/i.test(entry)) throw new Error(`a hop count, true or false stands alone, not in a list ("${entry}")`);
    try {
      proxyAddr.compile(entry);
    } catch {
      throw new Error(`"${entry.slice(0, 60)}" is not an IP address, a subnet such as 10.0.0.0/8, or loopback, linklocal or uniquelocal (or use a hop count, true or false)`);
    }
  }
  return proxyAddr.compile(entries);
}

/**
 * The address of the client a request comes from: the socket's peer, or, when that peer is a
 * trusted proxy, the address X-Forwarded-For names before the trusted proxies (walking back from
 * the nearest). The one place rate limits and every other per-client count take the client from.
 */
export function clientAddress(req: IncomingMessage, trust: ProxyTrust): string {
  const address = proxyAddr(req, trust) as string | undefined;
  return address ? address.slice(0, MAX_ADDRESS_CHARS) : "unknown";
}

/** Whether the client reached us over HTTPS: a TLS socket, or a trusted proxy's X-Forwarded-Proto (its first value). */
export function isHttps(req: IncomingMessage, trust: ProxyTrust): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted === true) return true;
  const peer = req.socket.remoteAddress;
  if (peer === undefined || !trust(peer, 0)) return false;
  const proto = req.headers["x-forwarded-proto"];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(",")[0]?.trim().toLowerCase();
  return first === "https";
}
