import { LOCAL_OWNER } from "../../lib/protocol/access";
import { AppError } from "../../lib/protocol/errors";
import { createApiTokens } from "../../lib/server/access/api-tokens";
import { createCookieSigner, loadCookieKey } from "../../lib/server/access/session-cookie";
import { openSessionEpoch } from "../../lib/server/access/session-epoch";
import { createPeople } from "../../lib/server/people/people-service";
import { createDb } from "../../lib/server/store/db/client";
import { TEST_TOKEN } from "./server-process";

/**
 * People on a test server's database, added as `parley user add` adds them with no server running
 * (a running server finds a name it does not know by reading the database again), each with an
 * API token in their name and a browser session cookie signed for them (what their sign-in link
 * would give their browser). The one way tests make people.
 */

export interface Person {
  name: string;
  /** An API token of theirs (scripts, sockets). */
  token: string;
  /** Their browser's session cookie: `name=value` for a Cookie header, and its parts for a browser context. */
  cookie: { name: string; value: string; header: string };
}

export interface AddPeopleOptions {
  /** Added with --admin. */
  admin?: boolean;
  /** The server's token (its cookies are signed with it). */
  serverToken?: string;
}

/** Adds people (a name already added is kept as it is) to the database at `databaseUrl` (`file:…`). */
export async function addPeople(databaseUrl: string, names: string[], { admin = false, serverToken = TEST_TOKEN }: AddPeopleOptions = {}): Promise<Person[]> {
  const db = await createDb(databaseUrl);
  try {
    const signer = createCookieSigner({ key: await loadCookieKey(db), serverToken });
    const epoch = await openSessionEpoch(db);
    const tokens = createApiTokens(db);
    const people = createPeople({ db, apiTokens: tokens });
    const added: Person[] = [];
    for (const name of names) {
      try {
        await people.add(name, { admin, addedBy: LOCAL_OWNER });
      } catch (err) {
        if (!(err instanceof AppError && err.code === "person_exists")) throw err;
      }
      const { token } = await tokens.create({ ownerId: name, name: `${name}'s test token` });
      const value = signer.issue(name, await epoch.fresh());
      added.push({ name, token, cookie: { name: signer.name, value, header: `${signer.name}=${value}` } });
    }
    return added;
  } finally {
    await db.close();
  }
}
