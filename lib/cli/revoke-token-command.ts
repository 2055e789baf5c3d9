import type { ApiTokenInfo } from "../protocol/access";
import { createApiTokens } from "../server/access/api-tokens";
import type { Db } from "../server/store/db/client";
import { createServerClient, ServerUnreachable, type FoundServer } from "./server-client";

/**
 * `parley token revoke ID`: through the running server when there is one, so the sockets signed in
 * with the token are dropped before this returns; otherwise in the database, where a server that
 * starts finds it (and one it could not reach notices it within its periodic check).
 */
export async function revokeTokenCommand({
  id,
  server,
  explicit,
  inDatabase,
}: {
  id: string;
  server: FoundServer | null;
  /** The server was named (--server, PARLEY_URL): not reaching it is an error, not a reason to write the database. */
  explicit: boolean;
  inDatabase: (work: (db: Db) => Promise<ApiTokenInfo>) => Promise<ApiTokenInfo>;
}): Promise<{ result: ApiTokenInfo; text: string }> {
  if (server) {
    try {
      const result = await createServerClient(server).revokeToken(id);
      return { result, text: `Revoked ${result.id} (${result.name}): refused from now on, and its connections closed.` };
    } catch (err) {
      if (!(err instanceof ServerUnreachable) || explicit) throw err;
    }
  }
  const result = await inDatabase((db) => createApiTokens(db).revoke(id));
  return { result, text: `Revoked ${result.id} (${result.name}): refused from now on (a running server closes its connections within 10 s).` };
}
