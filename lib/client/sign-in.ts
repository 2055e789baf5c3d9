import type { WhoAmI } from "../protocol/access";
import type { Ack } from "../protocol/socket";
import { SIGN_IN_LINK_PARAM } from "../protocol/teams";
import type { RequestJson } from "./api";

/**
 * Where to go after signing in: only a path on this site (never `//host` or another origin). A URL
 * parser drops tabs and newlines and reads `\` as `/`, so `/<tab>/host` would leave: none may appear.
 */
export function safeNext(next: string | null | undefined): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  return next && next.startsWith("/") && !next.startsWith("//") && !/[\u0000-\u001f\u007f\\]/.test(next) ? next : "/";
}

/** The session cookie is gone or no longer valid: go to the sign-in page, and come back here after. */
export function signInAgain(): void {
  if (typeof window === "undefined" || window.location.pathname === "/sign-in") return;
  const here = `${window.location.pathname}${window.location.search}`;
  window.location.assign(`/sign-in?next=${encodeURIComponent(here)}`);
}

/** What the sign-in page needs of the browser's address bar. */
export interface AddressBar {
  readonly href: string;
  replace(path: string): void;
}

/** The window's own address bar: history.replaceState, so the old address leaves the history too. */
export const windowAddressBar = (): AddressBar => ({
  href: window.location.href,
  replace: (path) => window.history.replaceState(window.history.state, "", path),
});

/**
 * The one-time sign-in link in the page's address (`?signin=sil_…`), taken out of it: a reload, the
 * history or a shared screenshot never shows it. Null when there is none.
 */
export function takeSignInLink(bar: AddressBar): string | null {
  const url = new URL(bar.href);
  const link = url.searchParams.get(SIGN_IN_LINK_PARAM);
  if (link === null) return null;
  url.searchParams.delete(SIGN_IN_LINK_PARAM);
  bar.replace(`${url.pathname}${url.search}${url.hash}`);
  return link;
}

/** Spends a sign-in link: this browser gets the person's session cookie, or the words that say why not. */
export const spendSignInLink = (request: RequestJson, link: string): Promise<Ack<WhoAmI>> => request<WhoAmI>("/api/auth/session", { method: "POST", body: { link }, signInOn401: false });
