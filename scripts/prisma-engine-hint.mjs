// What scripts/prisma.mjs says when Prisma could not download its engine (an offline machine, a
// firewall): Prisma's own error ends in a request that failed, which names no way out.

/** The docs section on running Prisma where its engine cannot be downloaded. */
export const ENGINE_DOCS = "docs/configuration.md#prisma-without-its-engine-download";

/**
 * The one line to print after Prisma's output when that output shows a failed download of one of
 * its engines ("Error: request to https://binaries.prisma.sh/…/schema-engine.gz.sha256 failed,
 * reason: getaddrinfo ENOTFOUND binaries.prisma.sh"); null for any other output.
 * @param {string} output what Prisma wrote to stderr
 * @returns {string | null}
 */
export function engineDownloadHint(output) {
  const failed = /request to (\S+) failed, reason: ([^\n]*)/.exec(output);
  if (!failed) return null;
  let url;
  try {
    url = new URL(failed[1]);
  } catch {
    return null;
  }
  const file = url.pathname.split("/").pop() ?? "";
  const engine = /^(.*engine[^.]*)/i.exec(file)?.[1];
  if (!engine && url.hostname !== "binaries.prisma.sh") return null;
  const reason = failed[2].trim().replace(/\.$/, "");
  return (
    `Prisma could not download its ${engine ?? "engine"} from ${url.host} (${reason}): ` +
    `set PRISMA_SCHEMA_ENGINE_BINARY to a schema engine this machine has (or the offline stand-in) and run it again; see ${ENGINE_DOCS}`
  );
}
