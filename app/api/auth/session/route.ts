import { LOCAL_OWNER, SignInBodySchema, type WhoAmI } from "@/lib/protocol/access";
import { AppError } from "@/lib/protocol/errors";
import type { Person } from "@/lib/protocol/teams";
import { cameOverHttps, clientAddressOf } from "@/lib/server/http/forwarded-headers";
import { SignOutBodySchema } from "@/lib/protocol/rest";
import { publicJsonRoute, readJson } from "@/lib/server/http/json-route";
import { clearSessionCookie, sessionCookie } from "@/lib/server/http/session-cookie-header";
import type { Parley } from "@/lib/server/app";
import { getModelInfo } from "@/lib/server/registry";

export const dynamic = "force-dynamic";

/** Who the caller is; 401 without a credential (the sign-in page asks this first). */
export const GET = publicJsonRoute(async ({ caller }): Promise<WhoAmI> => {
  if (!caller) throw new AppError("unauthorized", "Not signed in.");
  return { ownerId: caller.ownerId, via: caller.via, admin: caller.admin, model: getModelInfo() };
});

/**
 * Spends a person's one-time sign-in link. A link that fails counts against the client's address
 * as a wrong bearer token does (`badTokens`): links cannot be guessed faster than tokens.
 */
async function spendLink(parley: Parley, link: string, client: string): Promise<Person> {
  const outcome = await parley.access.rateLimits.failuresOnly(
    "badTokens",
    client,
    () =>
      parley.people.spendLink(link).then(
        (person) => ({ person }),
        (err: unknown) => {
          if (err instanceof AppError && err.code === "unauthorized") return { refused: err };
          throw err;
        },
      ),
    (o) => "person" in o,
  );
  if ("refused" in outcome) throw outcome.refused;
  return outcome.person;
}

/** Signs this browser in with the server token (the administrator) or a person's sign-in link: the answer sets the session cookie. */
export const POST = publicJsonRoute(async ({ req, parley }) => {
  const body = await readJson(req, SignInBodySchema);
  let who: WhoAmI;
  if ("link" in body) {
    const person = await spendLink(parley, body.link, clientAddressOf(req));
    who = { ownerId: person.name, via: "cookie", admin: person.admin };
  } else {
    if (!parley.access.authenticator.isServerToken(body.token)) throw new AppError("unauthorized", "That token is not this server's. Copy it again from the URL the server printed at start.");
    who = { ownerId: LOCAL_OWNER, via: "cookie", admin: true };
  }
  // X-Forwarded-Proto as the gate settled it: a trusted proxy's, never a client's own.
  const secure = cameOverHttps(req);
  const { browserSessions } = parley.access;
  return Response.json(who, { headers: { "set-cookie": sessionCookie(browserSessions.cookieName, await browserSessions.issue(who.ownerId), { secure }) } });
});

/** Signs this browser out (its cookie is cleared; to refuse copies of it too, sign out everywhere). */
export const DELETE = publicJsonRoute(async ({ req, parley }) => {
  await readJson(req, SignOutBodySchema, { optional: true });
  return Response.json({ signedOut: true }, { headers: { "set-cookie": clearSessionCookie(parley.access.browserSessions.cookieName) } });
});
