import { isUniqueViolation } from "../db/client";
import type { SqlExecutor } from "../sql-executor";
import type { RowOf } from "../typed-sql";
import * as T from "./people-statements";

export type PersonRow = RowOf<typeof T.findPerson>;
export type SignInLinkRow = RowOf<typeof T.findLink>;
/** A link as made: its id, the hash of its secret, and when it stops working. */
export type NewLink = { id: string; secretHash: string; expiresAt: Date };

/** The User, SignInLink and DisplayName tables: people (their name is their id), the one-time links that sign them in, and the names they are shown by. */
export function createPeopleStore(exec: SqlExecutor) {
  return {
    /** The new person with their first link, in one transaction; null when the name is taken (nothing is written). */
    add: (p: { name: string; admin: boolean; addedBy: string; at: Date }, link: NewLink): Promise<PersonRow | null> =>
      exec.transaction(async (tx) => {
        const [person] = await tx.rows(T.insertPerson, { id: p.name, admin: p.admin, addedBy: p.addedBy, at: p.at });
        if (!person) return null;
        await tx.changes(T.insertLink, { ...link, userId: p.name, at: p.at });
        return person;
      }),

    list: (): Promise<PersonRow[]> => exec.rows(T.listPeople, {}),

    find: async (name: string): Promise<PersonRow | null> => (await exec.rows(T.findPerson, { id: name }))[0] ?? null,

    /** Removes the person, their unused links and their display name in one transaction: the person as they were, or null for no such person. */
    remove: (name: string): Promise<PersonRow | null> =>
      exec.transaction(async (tx) => {
        const [person] = await tx.rows(T.deletePerson, { id: name });
        if (!person) return null;
        await tx.changes(T.deleteUnusedLinksOf, { userId: name });
        await tx.changes(T.deleteDisplayName, { personId: name });
        return person;
      }),

    /** The display names given, by person id (the people no one renamed are not there). */
    displayNames: async (): Promise<Map<string, string>> => new Map((await exec.rows(T.listDisplayNames, {})).map((r) => [r.personId, r.name])),

    /** Gives a person a display name (null: back to their default); false when the name is another's (the unique key refused it). */
    async setDisplayName(personId: string, name: string | null, at: Date): Promise<boolean> {
      if (name === null) {
        await exec.changes(T.deleteDisplayName, { personId });
        return true;
      }
      try {
        await exec.changes(T.setDisplayName, { personId, name, at });
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },

    /** A new link for an existing person, in place of their unused ones: false when there is no such person (it is not made). */
    replaceLinks: (userId: string, link: NewLink, at: Date): Promise<boolean> =>
      exec.transaction(async (tx) => {
        if ((await tx.rows(T.findPerson, { id: userId })).length === 0) return false;
        await tx.changes(T.deleteUnusedLinksOf, { userId });
        await tx.changes(T.insertLink, { ...link, userId, at });
        return true;
      }),

    findLink: async (id: string): Promise<SignInLinkRow | null> => (await exec.rows(T.findLink, { id }))[0] ?? null,

    /** The person a link signs in, if it was unused and unexpired at `at` (it is used from now on); null otherwise. */
    spendLink: async (id: string, at: Date): Promise<string | null> => (await exec.write(T.spendLink, { id, at }))[0]?.userId ?? null,
  };
}

export type PeopleStore = ReturnType<typeof createPeopleStore>;
