import type { WhoAmI } from "../protocol/access";
import { defaultDisplayName, type NameOf } from "../protocol/display-names";
import type { RequestJson } from "./api";

/** How a person is named on screen: their display name (the administrator `local`: "Administrator" until renamed). */
export const screenName = (ownerId: string, nameOf: NameOf = defaultDisplayName): string => nameOf(ownerId);

/** The initial on a person's badge. */
export const personInitial = (ownerId: string, nameOf: NameOf = defaultDisplayName): string => screenName(ownerId, nameOf).charAt(0).toUpperCase();

/**
 * Who this tab is signed in as, asked once per page load (every header that shows it shares the
 * answer); null when it could not be asked (a 401 has already sent the tab to the sign-in page).
 */
export function createWhoAmI(request: RequestJson) {
  let asked: Promise<WhoAmI | null> | null = null;
  let known: WhoAmI | null = null;
  return {
    /** The answer, once one came. */
    get known(): WhoAmI | null {
      return known;
    },
    ask(): Promise<WhoAmI | null> {
      asked ??= request<WhoAmI>("/api/auth/session").then((res) => {
        if (!res.ok) {
          // Asked again next time (the server was away).
          asked = null;
          return null;
        }
        known = res.data;
        return known;
      });
      return asked;
    },
  };
}
