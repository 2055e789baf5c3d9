import { LOCAL_OWNER, SignInBodySchema, type WhoAmI } from "@/lib/protocol/access";
import { AppError } from "@/lib/protocol/errors";
import { cameOverHttps } from "@/lib/server/http/forwarded-headers";
import { SignOutBodySchema } from "@/lib/protocol/rest";
import { publicJsonRoute, readJson } from "@/lib/server/http/json-route";
import { clearSessionCookie, sessionCookie } from "@/lib/server/http/session-cookie-header";

export const dynamic = "force-dynamic";

/** Who the caller is; 401 without a credential (the sign-in page asks this first). */
export const GET = publicJsonRoute(async ({ caller }): Promise<WhoAmI> => {
  if (!caller) throw new AppError("unauthorized", "Not signed in.");
  return { ownerId: caller.ownerId, via: caller.via };
});

/** Signs this browser in with the server token: the answer sets the session cookie. */
export const POST = publicJsonRoute(async ({ req, parley }) => {
  const { token } = await readJson(req, SignInBodySchema);
  if (!parley.access.authenticator.isServerToken(token)) throw new AppError("unauthorized", "That token is not this server's. Copy it again from the URL the server printed at start.");
  // X-Forwarded-Proto as the gate settled it: a trusted proxy's, never a client's own.
  const secure = cameOverHttps(req);
  const body: WhoAmI = { ownerId: LOCAL_OWNER, via: "cookie" };
  const { browserSessions } = parley.access;
  return Response.json(body, { headers: { "set-cookie": sessionCookie(browserSessions.cookieName, await browserSessions.issue(LOCAL_OWNER), { secure }) } });
});

/** Signs this browser out (its cookie is cleared; to refuse copies of it too, sign out everywhere). */
export const DELETE = publicJsonRoute(async ({ req, parley }) => {
  await readJson(req, SignOutBodySchema, { optional: true });
  return Response.json({ signedOut: true }, { headers: { "set-cookie": clearSessionCookie(parley.access.browserSessions.cookieName) } });
});
