import { randomBytes } from "node:crypto";
import { LOCAL_OWNER } from "../../protocol/access";
import { AppError, parseOrThrow } from "../../protocol/errors";
import { NewPersonNameSchema, PersonNameSchema, SIGN_IN_LINK_PATTERN, SIGN_IN_LINK_TTL_MS, type Person, type RemovePersonResult } from "../../protocol/teams";
import type { ApiTokens } from "../access/api-tokens";
import { randomSecret, sameSecret, sha256 } from "../access/secrets";
import type { PersonRenamed } from "../../protocol/display-names";
import type { Db } from "../store/db/client";
import { createPeopleStore, type NewLink, type PersonRow } from "../store/people/people-store";
import { createDisplayNames } from "./display-names";

export const toPerson = (row: PersonRow, displayName: string = row.id): Person => ({ name: row.id, displayName, admin: row.admin, createdAt: row.createdAt.toISOString() });

/** A link as handed out once (`sil_<id>_<secret>`: the id finds the row, the secret is compared by hash), and when it stops working. */
export interface IssuedLink {
  link: string;
  expiresAt: string;
}

const askForAnother = (name: string) => `Ask for a new one: parley user link ${name}`;

export interface PeopleDeps {
  db: Db;
  apiTokens: ApiTokens;
  now?: () => number;
  /** Told after this changed people (the server forgets its cache, tells the other nodes, and after a removal drops sockets). */
  changed?: (change: { removed: boolean }) => void;
  /** How a removed person's API tokens are revoked (the server's own revocation drops their sockets too); default: in the database. */
  revokeToken?: (id: string) => Promise<unknown>;
  /** Told after a person was renamed (the server tells every open tab). */
  renamed?: (renamed: PersonRenamed) => void;
}

/**
 * People (teams): the administrator adds them by name, each gets a one-time sign-in link, and
 * removing one refuses everything that speaks for them (their cookies, their API tokens). The
 * administrator `local` is no row: the server token speaks for it.
 */
export function createPeople({ db, apiTokens, now = Date.now, changed = () => {}, revokeToken = (id) => apiTokens.revoke(id), renamed = () => {} }: PeopleDeps) {
  const store = createPeopleStore(db.exec);
  const names = createDisplayNames(store, { now });

  function newLink(at: number): { row: NewLink; issued: IssuedLink } {
    const id = randomBytes(8).toString("hex");
    const secret = randomSecret(30);
    const expiresAt = new Date(at + SIGN_IN_LINK_TTL_MS);
    return { row: { id, secretHash: sha256(secret).toString("hex"), expiresAt }, issued: { link: `sil_${id}_${secret}`, expiresAt: expiresAt.toISOString() } };
  }

  /** A name the person operations act on: a person's, not the administrator's. */
  function personName(name: string, what: string): string {
    const parsed = parseOrThrow(PersonNameSchema, name);
    if (parsed === LOCAL_OWNER) throw new AppError("bad_request", `"${LOCAL_OWNER}" is the administrator (the server token speaks for it): it cannot be ${what}.`);
    return parsed;
  }

  return {
    /** Adds a person: them, and their first sign-in link. A name already taken is `person_exists`. */
    async add(name: string, { admin = false, addedBy }: { admin?: boolean; addedBy: string }): Promise<{ person: Person } & IssuedLink> {
      const id = parseOrThrow(NewPersonNameSchema, name);
      await names.checkFree(id);
      const at = now();
      const { row, issued } = newLink(at);
      const person = await store.add({ name: id, admin, addedBy, at: new Date(at) }, row);
      if (!person) throw new AppError("person_exists", `There is already a person named "${id}". Give them a new sign-in link with: parley user link ${id}`);
      changed({ removed: false });
      return { person: toPerson(person), ...issued };
    },

    list: async (): Promise<Person[]> => {
      const [rows, shown] = await Promise.all([store.list(), names.directory()]);
      return rows.map((row) => toPerson(row, shown[row.id]));
    },

    /** Everyone's display name by id, the administrator's too (`GET /api/names`). */
    names: names.directory,

    /** How the audit names people. */
    nameOf: names.nameOf,

    /**
     * Gives a person (named by their id or their display name; the administrator too) a new display
     * name, and tells every tab; `may` says whether the caller may rename that person (checked once
     * the name is known to mean someone).
     */
    async rename(name: string, displayName: string, may: (id: string) => void = () => {}): Promise<PersonRenamed> {
      const id = await names.resolve(name);
      if (id !== null) may(id);
      const result = await names.rename(id ?? name, displayName);
      renamed(result);
      return result;
    },

    /** The id of the person a name means (their id or their display name); not_found:person for nobody. */
    async idOf(name: string): Promise<string> {
      const id = (await names.resolve(name)) ?? name;
      if (id !== LOCAL_OWNER && (await store.find(id)) === null) throw new AppError("not_found:person", `No person named "${name.slice(0, 100)}".`);
      return id;
    },

    /** Whether a person of this name exists (the administrator `local` always does). */
    exists: async (name: string): Promise<boolean> => name === LOCAL_OWNER || (await store.find(name)) !== null,

    /** A new sign-in link for a person, in place of their unused ones. */
    async newLink(name: string): Promise<{ name: string } & IssuedLink> {
      const id = personName(name, "given a sign-in link; it signs in with the server token");
      const at = now();
      const { row, issued } = newLink(at);
      if (!(await store.replaceLinks(id, row, new Date(at)))) throw notFound(id);
      return { name: id, ...issued };
    },

    /**
     * Removes a person: their row and unused links go, their API tokens are revoked, and (through
     * `changed`) their cookies are refused and their sockets dropped.
     */
    async remove(name: string): Promise<RemovePersonResult> {
      const id = personName(name, "removed");
      const displayName = (await names.directory())[id];
      const person = await store.remove(id);
      if (!person) throw notFound(id);
      changed({ removed: true });
      const live = (await apiTokens.list()).filter((t) => t.ownerId === id && !t.revokedAt).map((t) => t.id);
      for (const tokenId of live) await revokeToken(tokenId);
      return { person: toPerson(person, displayName), revokedTokens: live };
    },

    /**
     * Spends a sign-in link: the person it signs in, once. Anything else is `unauthorized`, in
     * words that say what to do (a link that was used, expired, replaced, or never was one).
     */
    async spendLink(link: string): Promise<Person> {
      const match = SIGN_IN_LINK_PATTERN.exec(link.trim());
      if (!match) throw new AppError("unauthorized", "That is not a whole sign-in link (it starts with sil_). Copy all of it, or ask for a new one: parley user link NAME");
      const [, id, secret] = match as unknown as [string, string, string];
      const row = await store.findLink(id);
      const unknown = new AppError("unauthorized", "This sign-in link is not known here: a newer one may have replaced it, or the person was removed. Ask for a new one: parley user link NAME");
      if (!row || !sameSecret(sha256(secret).toString("hex"), row.secretHash)) throw unknown;
      const at = new Date(now());
      const userId = await store.spendLink(id, at);
      if (!userId) {
        const after = (await store.findLink(id)) ?? row;
        if (after.usedAt) throw new AppError("unauthorized", `This sign-in link was already used. ${askForAnother(row.userId)}`);
        throw new AppError("unauthorized", `This sign-in link expired at ${row.expiresAt.toISOString()}. ${askForAnother(row.userId)}`);
      }
      const person = await store.find(userId);
      if (!person) throw unknown;
      return toPerson(person, (await names.directory())[userId]);
    },
  };
}

const notFound = (name: string) => new AppError("not_found:person", `No person named "${name}". See who there is with: parley user list`);

export type People = ReturnType<typeof createPeople>;
