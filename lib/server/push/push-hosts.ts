import { AppError } from "../../protocol/errors";
import { hostListed } from "../webhooks/callback-hosts";

/** The push services of the browsers people use: Chromium's (FCM), Firefox's (Mozilla autopush), Edge's (WNS) and Safari's (Apple). */
const KNOWN_HOSTS = ["fcm.googleapis.com", "updates.push.services.mozilla.com", "web.push.apple.com"];
const KNOWN_SUFFIXES = [".push.services.mozilla.com", ".notify.windows.com", ".push.apple.com"];

function knownService(target: URL): boolean {
  if (target.port !== "" && target.port !== "443") return false;
  const host = target.hostname.toLowerCase();
  return KNOWN_HOSTS.includes(host) || KNOWN_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

/** Whether the server may post pushes to this endpoint: https on a known push service, or on a host PARLEY_PUSH_HOSTS lists. */
export function pushEndpointAllowed(endpoint: string, hosts: readonly string[]): boolean {
  let target: URL;
  try {
    target = new URL(endpoint);
  } catch {
    return false;
  }
  if (target.protocol !== "https:" || target.username || target.password) return false;
  return knownService(target) || hostListed(endpoint, hosts);
}

/** Refuses an endpoint the server would not post to, naming what it posts to and the setting that would allow more (an open relay otherwise). */
export function checkPushEndpoint(endpoint: string, hosts: readonly string[]): void {
  if (pushEndpointAllowed(endpoint, hosts)) return;
  let where: string;
  try {
    const target = new URL(endpoint);
    where = target.protocol === "https:" ? `its host "${target.host}" is not a known push service` : "it is not an https: URL";
  } catch {
    where = "it is not a URL";
  }
  throw new AppError(
    "push_endpoint_not_allowed",
    `This push endpoint is refused: ${where}. The server pushes over https to fcm.googleapis.com, *.push.services.mozilla.com, *.notify.windows.com and *.push.apple.com, and to the hosts PARLEY_PUSH_HOSTS lists (now: ${hosts.join(", ") || "none"}).`,
  );
}
