import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { SESSION_COOKIE } from "../../protocol/access";
import { isUniqueViolation, type Db } from "../db/client";
import { randomSecret } from "./secrets";

const KEY_SETTING = "session_cookie_key";
export const SESSION_MAX_AGE_S = 30 * 24 * 3600;

/** The key that signs session cookies, kept in the database so a restart does not sign everyone out. */
export async function loadCookieKey(db: Db): Promise<string> {
  try {
    await db.setting.upsert({ where: { key: KEY_SETTING }, create: { key: KEY_SETTING, value: randomSecret(32) }, update: {} });
  } catch (err) {
    // Another node starting at the same moment made it first (an upsert is not atomic on PostgreSQL): theirs is the key.
    if (!isUniqueViolation(err)) throw err;
  }
  return (await db.setting.findUniqueOrThrow({ where: { key: KEY_SETTING } })).value;
}

/** A browser session: `<owner>.<issued ms>.<hmac>`, valid for SESSION_MAX_AGE_S. */
export function createSessionCookies(key: string, now: () => number = Date.now) {
  const sign = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url");
  return {
    /** `parley_session_<tag>`: the tag names the key (and so the database), never reveals it. */
    name: `${SESSION_COOKIE}_${createHash("sha256").update(`cookie-name:${key}`).digest("hex").slice(0, 8)}`,
    issue(ownerId: string): string {
      const payload = `${ownerId}.${now()}`;
      return `${payload}.${sign(payload)}`;
    },
    /** The owner and the cookie's issue time (which names this browser's sign-in), or null. */
    verify(value: string | undefined): { ownerId: string; issuedAt: number } | null {
      if (!value) return null;
      const parts = value.split(".");
      if (parts.length !== 3) return null;
      const [ownerId, issued, mac] = parts as [string, string, string];
      const expected = Buffer.from(sign(`${ownerId}.${issued}`));
      const given = Buffer.from(mac);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      const issuedAt = Number(issued);
      if (!Number.isFinite(issuedAt) || now() - issuedAt > SESSION_MAX_AGE_S * 1000) return null;
      return { ownerId, issuedAt };
    },
  };
}

export type SessionCookies = ReturnType<typeof createSessionCookies>;
