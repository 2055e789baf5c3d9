import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { SESSION_COOKIE } from "../../protocol/access";
import type { Db } from "../store/db/client";
import { createSettingStore } from "../store/access/setting-store";
import { randomSecret } from "./secrets";

const KEY_SETTING = "session_cookie_key";
export const SESSION_MAX_AGE_S = 30 * 24 * 3600;

/** The key that signs session cookies, kept in the database so a restart does not sign everyone out. */
export const loadCookieKey = async (db: Db): Promise<string> => createSettingStore(db.exec).keep(KEY_SETTING, randomSecret(32));

export interface CookieSignerOptions {
  /** The database's cookie key (every node of one database has the same). */
  key: string;
  /** The server token the cookies are issued for (every node has the same): another token, and they are refused. */
  serverToken: string;
  now?: () => number;
}

/**
 * Signs and checks browser session cookies: `<owner>.<issued ms>.<hmac>`, valid for
 * SESSION_MAX_AGE_S. The HMAC's key is derived from the database's key and the server token, and
 * it signs the revocation epoch with the payload: a cookie is good only while the server runs
 * with the token it was issued for, and only in the epoch it was issued in (session-epoch.ts).
 */
export function createCookieSigner({ key, serverToken, now = Date.now }: CookieSignerOptions) {
  const signingKey = createHmac("sha256", key).update(`parley-session-cookie\0${serverToken}`).digest();
  const sign = (epoch: string, payload: string) => createHmac("sha256", signingKey).update(`${epoch}\0${payload}`).digest("base64url");

  /** The owner and issue time of a well-formed cookie within its age; whether it is genuine is not checked here. */
  function read(value: string | undefined): { ownerId: string; issued: string; issuedAt: number; mac: string } | null {
    if (!value) return null;
    // From the right: a person's name may hold dots, the issue time and the MAC never do.
    const parts = value.split(".");
    if (parts.length < 3) return null;
    const mac = parts.pop()!;
    const issued = parts.pop()!;
    const ownerId = parts.join(".");
    const issuedAt = Number(issued);
    if (!/^\d+$/.test(issued) || !Number.isSafeInteger(issuedAt) || now() - issuedAt > SESSION_MAX_AGE_S * 1000) return null;
    return { ownerId, issued, issuedAt, mac };
  }

  return {
    /** `parley_session_<tag>`: the tag names the key (and so the database), never reveals it. */
    name: `${SESSION_COOKIE}_${createHash("sha256").update(`cookie-name:${key}`).digest("hex").slice(0, 8)}`,
    issue(ownerId: string, epoch: string): string {
      const payload = `${ownerId}.${now()}`;
      return `${payload}.${sign(epoch, payload)}`;
    },
    /** Whether a value could be a cookie of this server at all (well-formed, not past its age): worth checking against a fresher epoch. */
    plausible: (value: string | undefined): boolean => read(value) !== null,
    /** The owner and the cookie's issue time (which names this browser's sign-in) when it was signed in `epoch`, or null. */
    verify(value: string | undefined, epoch: string): { ownerId: string; issuedAt: number } | null {
      const cookie = read(value);
      if (!cookie) return null;
      const expected = Buffer.from(sign(epoch, `${cookie.ownerId}.${cookie.issued}`));
      const given = Buffer.from(cookie.mac);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      return { ownerId: cookie.ownerId, issuedAt: cookie.issuedAt };
    },
  };
}

export type CookieSigner = ReturnType<typeof createCookieSigner>;
