import type { RotateTokenResult } from "../protocol/access";
import { AppError } from "../protocol/errors";
import { rotateKeptToken } from "../server/access/kept-token";
import { readAnnouncement, tokenFilePath } from "../server/store/db/server-file";
import { createServerClient, type FoundServer } from "./server-client";

/**
 * `parley token rotate`: through the running server when there is one (it keeps the new token and
 * refuses the old one at once); with none, the token file is rewritten for the next start.
 */
export async function rotateTokenCommand({ databaseUrl, server }: { databaseUrl: string; server: FoundServer | null }): Promise<{ result: RotateTokenResult; text: string }> {
  const file = tokenFilePath(databaseUrl);
  if (server) {
    const result = await createServerClient(server).rotateToken();
    // The server of this database, on this machine: its new token is in the files beside the database.
    const announced = readAnnouncement(databaseUrl);
    const local = announced?.url === server.url && announced.token;
    const where = local ? ` The new one is kept in ${file}.\nSign in again: ${new URL(`/?token=${announced.token}`, server.url).href}` : " The new one is kept in the token file beside its database.";
    return { result, text: `Rotated the server token of ${server.url}: the old one is refused and browsers are signed out.${where}` };
  }
  if (!file) throw new AppError("bad_request", "An in-memory database keeps no server token.");
  rotateKeptToken(file);
  const result = { rotatedAt: new Date().toISOString() };
  return { result, text: `Rotated the server token kept in ${file}: the next server started without PARLEY_TOKEN uses it.` };
}
