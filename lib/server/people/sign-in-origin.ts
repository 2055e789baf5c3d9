/** The URL a server on HOST and PORT prints at start (a wildcard address is reached as localhost). */
export function startUrl(host: string, port: number): string {
  const name = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/**
 * The origin of the sign-in links a server hands out: the first of PARLEY_ALLOWED_ORIGINS (a
 * proxy's, where people reach it), else the URL the server prints at start.
 */
export function signInOrigin({ allowedOrigins, host, port }: { allowedOrigins: readonly string[]; host: string; port: number }): string {
  const [first] = allowedOrigins;
  return first ? new URL(first).origin : startUrl(host, port);
}
