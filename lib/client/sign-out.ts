import type { SignOutEverywhereResult } from "../protocol/access";
import type { Ack } from "../protocol/socket";
import type { RequestJson } from "./api";

/** Where a signed-out tab goes: the sign-in page, with nothing to come back to. */
export function showSignIn(): void {
  window.location.assign("/sign-in");
}

/**
 * Signing this browser out (its cookie is cleared), or every browser (every cookie issued so far
 * is refused, on every node, and their tabs disconnect). First this browser's notifications are
 * removed (`forgetDevice`: the next person here may subscribe it; a failure does not stop the sign-out).
 * On success this tab goes to the sign-in page; a failure is returned for the caller to show, and the tab stays.
 */
export function createSignOut({ request, signedOut = showSignIn, forgetDevice = async () => {} }: { request: RequestJson; signedOut?: () => void; forgetDevice?: () => Promise<void> }) {
  const forget = () => forgetDevice().catch(() => {});
  return {
    async thisBrowser(): Promise<Ack<unknown>> {
      await forget();
      const res = await request("/api/auth/session", { method: "DELETE" });
      if (res.ok) signedOut();
      return res;
    },
    async everywhere(): Promise<Ack<SignOutEverywhereResult>> {
      await forget();
      const res = await request<SignOutEverywhereResult>("/api/auth/sign-out-everywhere", { method: "POST", body: {} });
      if (res.ok) signedOut();
      return res;
    },
  };
}
