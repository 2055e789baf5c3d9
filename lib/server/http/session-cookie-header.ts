import { SESSION_MAX_AGE_S } from "../access/session-cookie";

/** The Set-Cookie value of a browser session: script-proof (HttpOnly) and never sent by another site's request (SameSite=Strict). */
export function sessionCookie(name: string, value: string, { secure }: { secure: boolean }): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_AGE_S}${secure ? "; Secure" : ""}`;
}

export function clearSessionCookie(name: string): string {
  return `${name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}
