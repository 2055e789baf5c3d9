import { hostname as machineName, networkInterfaces } from "node:os";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];
const WILDCARDS = new Set(["0.0.0.0", "::", ""]);

export const isLoopbackHost = (host: string): boolean => LOOPBACK_NAMES.includes(host) || host.startsWith("127.") || host.endsWith(".localhost");

/** `[::1]` → `::1`, lower case. */
const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();

function hostnameOf(hostHeader: string): string | null {
  try {
    return bare(new URL(`http://${hostHeader}`).hostname);
  } catch {
    return null;
  }
}

/**
 * Which Host and Origin headers this server answers: its own names (the bound address, loopback
 * names, and the machine's addresses when bound to every interface) and PARLEY_ALLOWED_ORIGINS.
 * The Host check stops DNS rebinding; the Origin check stops cross-site writes (localhost on
 * another port is the same site for cookies, so an Origin must name this server's port too).
 */
export function createOriginPolicy({ host, port, allowedOrigins = [] }: { host: string; port: () => number; allowedOrigins?: string[] }) {
  const names = new Set(LOOPBACK_NAMES);
  if (WILDCARDS.has(host)) {
    names.add(machineName().toLowerCase());
    for (const list of Object.values(networkInterfaces())) for (const nic of list ?? []) names.add(bare(nic.address));
  } else names.add(bare(host));
  const origins = new Set<string>();
  for (const o of allowedOrigins) {
    try {
      const url = new URL(o);
      origins.add(url.origin);
      names.add(bare(url.hostname));
    } catch {
      // env.ts refuses malformed origins at start
    }
  }

  return {
    hostAllowed(hostHeader: string | undefined): boolean {
      if (!hostHeader) return false;
      const name = hostnameOf(hostHeader);
      return name !== null && (names.has(name) || name.endsWith(".localhost"));
    },
    originAllowed(origin: string): boolean {
      if (origins.has(origin)) return true;
      try {
        const url = new URL(origin);
        if (url.protocol !== "http:" && url.protocol !== "https:") return false;
        const effectivePort = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
        return this.hostAllowed(url.host) && effectivePort === port();
      } catch {
        return false; // "null" (sandboxed frames, file:) and garbage
      }
    },
  };
}

export type OriginPolicy = ReturnType<typeof createOriginPolicy>;

/**
 * Why the server may not start as configured, or null: on an address other machines can reach,
 * a token printed to a terminal is not a secret anyone agreed on, so PARLEY_TOKEN must be set.
 */
export function bindRefusal(host: string, token: string | undefined): string | null {
  if (isLoopbackHost(host) || token) return null;
  return [
    `Refusing to listen on ${host}: other machines could reach Parley there, and no PARLEY_TOKEN is set.`,
    "Set PARLEY_TOKEN to a secret of at least 16 characters (everyone who signs in needs it),",
    "or leave HOST unset to listen on 127.0.0.1 only.",
  ].join("\n");
}
