import type { CookieSigner } from "./session-cookie";
import type { SessionEpoch } from "./session-epoch";

/**
 * Browsers signed in with the server token: their session cookies are issued in the current
 * revocation epoch and checked against it, so "sign out everywhere" (a new epoch) refuses every
 * cookie issued before it, on every node.
 */
export function createBrowserSessions({ signer, epoch, now = Date.now }: { signer: CookieSigner; epoch: SessionEpoch; now?: () => number }) {
  return {
    /** The cookie's name (it names the database's key). */
    cookieName: signer.name,

    /** A new session cookie's value, in the epoch the database has now. */
    async issue(ownerId: string): Promise<string> {
      return signer.issue(ownerId, await epoch.fresh());
    },

    /**
     * The owner and issue time of a genuine cookie of the current epoch, or null. A cookie that
     * fails against the cached epoch but could be genuine is checked once more against the
     * database's (another node may have renewed it, and issued this cookie in the new one).
     */
    async verify(value: string | undefined): Promise<{ ownerId: string; issuedAt: number } | null> {
      if (!signer.plausible(value)) return null;
      const cached = await epoch.current();
      const session = signer.verify(value, cached);
      if (session) return session;
      const fresh = await epoch.fresh();
      return fresh === cached ? null : signer.verify(value, fresh);
    },

    /** Signs every browser out: cookies issued before now are refused. When it happened. */
    async signOutEverywhere(): Promise<{ at: Date }> {
      await epoch.renew();
      return { at: new Date(now()) };
    },

    /** Another node signed every browser out: the next check reads the epoch from the database. */
    signedOutElsewhere(): void {
      epoch.forget();
    },
  };
}

export type BrowserSessions = ReturnType<typeof createBrowserSessions>;
