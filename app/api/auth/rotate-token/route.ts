import { RotateTokenBodySchema, type RotateTokenResult } from "@/lib/protocol/access";
import { AppError } from "@/lib/protocol/errors";
import { jsonRoute, readJson } from "@/lib/server/http/json-route";
import { clearSessionCookie } from "@/lib/server/http/session-cookie-header";

export const dynamic = "force-dynamic";

/**
 * Rotates the server token (`parley token rotate`): only the server token itself may, since a
 * cookie or an API token that could replace it would outrank its holder. The new token is not
 * sent back: it is kept in the token file, for whoever may read the server's data folder.
 */
export const POST = jsonRoute(async ({ req, parley, caller }) => {
  await readJson(req, RotateTokenBodySchema, { optional: true });
  if (caller.via !== "server_token") throw new AppError("forbidden", "Only the server token can rotate the server token.");
  const result: RotateTokenResult = await parley.rotateServerToken();
  return Response.json(result, { headers: { "set-cookie": clearSessionCookie(parley.access.browserSessions.cookieName) } });
});
