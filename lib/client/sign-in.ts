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
