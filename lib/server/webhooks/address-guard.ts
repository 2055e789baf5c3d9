import dns, { type LookupAddress } from "node:dns";
import { BlockList, isIPv4, type LookupFunction } from "node:net";

/** Addresses that are not the public internet: loopback, private, link-local (cloud metadata), shared, reserved, multicast. */
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, "ipv6");
}

export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPublicAddress(mapped);
  return !NON_PUBLIC.check(address, isIPv4(address) ? "ipv4" : "ipv6");
}

type Resolve = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;
const systemResolve: Resolve = (hostname, callback) => dns.lookup(hostname, { all: true }, callback);

/**
 * The DNS lookup of a webhook's connection: a name may resolve to an address that is not public
 * (loopback, private, link-local) only when that address is listed too. A listed name whose DNS
 * turns to an inside address (rebinding, a taken-over record) reaches nothing inside. The
 * connection uses the addresses checked here, so there is no second lookup to differ.
 */
export function guardedLookup(allowed: readonly string[], resolve: Resolve = systemResolve, setting = "PARLEY_WEBHOOK_HOSTS"): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const permitted = addresses.filter((a) => isPublicAddress(a.address) || allowed.includes(a.address.toLowerCase()));
      if (permitted.length === 0) {
        const shown = addresses.map((a) => a.address).join(", ") || "nothing";
        return callback(Object.assign(new Error(`${hostname} resolves to ${shown}, not a public address, and ${setting} does not list it`), { code: "EADDRNOTPUBLIC" }), "", 0);
      }
      const wanted = options.family === 4 || options.family === 6 ? permitted.filter((a) => a.family === options.family) : permitted;
      if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} has no permitted IPv${options.family} address`), { code: "ENOTFOUND" }), "", 0);
      if (options.all) return (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, wanted);
      callback(null, wanted[0]!.address, wanted[0]!.family);
    });
  };
}
