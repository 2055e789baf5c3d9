import { createDb } from "../../lib/server/store/db/client";
import { statement } from "../../lib/server/store/typed-sql";
import { createApiTokens } from "../../lib/server/access/api-tokens";
import { createCookieSigner, loadCookieKey } from "../../lib/server/access/session-cookie";
import { openSessionEpoch } from "../../lib/server/access/session-epoch";
import { TEST_TOKEN } from "./server-process";

/**
 * People on a test server's database, made as the server would make them: a `User` row (until
 * `parley user add` is there to call), an API token in their name, and a browser session cookie
 * signed for them (what their sign-in link would give their browser).
 */

const insertPerson = statement((q, p: { id: string; at: Date }) =>
  q
    .insertInto("User")
    .values({ id: p.id, admin: false, addedBy: "local", createdAt: p.at })
    .onConflict((oc) => oc.column("id").doNothing()),
);

export interface Person {
  name: string;
  /** An API token of theirs (scripts, sockets). */
  token: string;
  /** Their browser's session cookie: `name=value` for a Cookie header, and its parts for a browser context. */
  cookie: { name: string; value: string; header: string };
}

/** Adds people (idempotent) to the database at `databaseUrl` (`file:…`), each with a token and a signed-in browser cookie; `serverToken` is the server's. */
export async function addPeople(databaseUrl: string, names: string[], serverToken = TEST_TOKEN): Promise<Person[]> {
  const db = await createDb(databaseUrl);
  try {
    const signer = createCookieSigner({ key: await loadCookieKey(db), serverToken });
    const epoch = await openSessionEpoch(db);
    const tokens = createApiTokens(db);
    const people: Person[] = [];
    for (const name of names) {
      await db.exec.changes(insertPerson, { id: name, at: new Date() });
      const { token } = await tokens.create({ ownerId: name, name: `${name}'s test token` });
      const value = signer.issue(name, await epoch.fresh());
      people.push({ name, token, cookie: { name: signer.name, value, header: `${signer.name}=${value}` } });
    }
    return people;
  } finally {
    await db.close();
  }
}
