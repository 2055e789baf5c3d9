import type { SignOutEverywhereResult } from "../protocol/access";
import { openSessionEpoch } from "../server/access/session-epoch";
import type { Db } from "../server/store/db/client";
import { createServerClient, ServerUnreachable, type FoundServer } from "./server-client";

/**
 * `parley sign-out-everywhere`: through the running server when there is one (its sockets of
 * older cookies are dropped at once, and the other nodes told); otherwise a new revocation epoch
 * goes straight into the database, which servers read within a second.
 */
export async function signOutEverywhereCommand({
  server,
  explicit,
  inDatabase,
}: {
  server: FoundServer | null;
  /** The server was named (--server, PARLEY_URL): not reaching it is an error, not a reason to write the database. */
  explicit: boolean;
  inDatabase: (work: (db: Db) => Promise<SignOutEverywhereResult>) => Promise<SignOutEverywhereResult>;
}): Promise<{ result: SignOutEverywhereResult; text: string }> {
  if (server) {
    try {
      const result = await createServerClient(server).signOutEverywhere();
      return { result, text: `Signed out every browser: session cookies issued before ${result.at} are refused, and their tabs disconnected. Sign in again with the server token.` };
    } catch (err) {
      if (!(err instanceof ServerUnreachable) || explicit) throw err;
    }
  }
  const result = await inDatabase(async (db) => {
    await (await openSessionEpoch(db)).renew();
    return { signedOut: "everywhere", at: new Date().toISOString() };
  });
  return { result, text: `Signed out every browser: session cookies issued before ${result.at} are refused (a running server within a second). Sign in again with the server token.` };
}
