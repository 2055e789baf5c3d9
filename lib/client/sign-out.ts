import type { SignOutEverywhereResult } from "../protocol/access";
import type { Ack } from "../protocol/socket";
import type { RequestJson } from "./api";

/** Where a signed-out tab goes: the sign-in page, with nothing to come back to. */
export function showSignIn(): void {
  window.location.assign("/sign-in");
}

/**
 * Signing this browser out (its cookie is cleared), or every browser (every cookie issued so far
 * is refused, on every node, and their tabs disconnect). On success this tab goes to the sign-in
 * page; a failure is returned for the caller to show, and the tab stays.
 */
export function createSignOut({ request, signedOut = showSignIn }: { request: RequestJson; signedOut?: () => void }) {
  return {
    async thisBrowser(): Promise<Ack<unknown>> {
      const res = await request("/api/auth/session", { method: "DELETE" });
      if (res.ok) signedOut();
      return res;
    },
    async everywhere(): Promise<Ack<SignOutEverywhereResult>> {
      const res = await request<SignOutEverywhereResult>("/api/auth/sign-out-everywhere", { method: "POST", body: {} });
      if (res.ok) signedOut();
      return res;
    },
  };
}
