import { SESSION_COOKIE } from "../../protocol/access";
import { SESSION_MAX_AGE_S } from "../access/session-cookie";

/** The Set-Cookie value of a browser session: script-proof (HttpOnly) and never sent by another site's request (SameSite=Strict). */
export function sessionCookie(value: string, { secure }: { secure: boolean }): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_AGE_S}${secure ? "; Secure" : ""}`;
}

export function clearSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}
